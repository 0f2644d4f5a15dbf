import type { Request } from 'express';
import type { FingerprintComponentHashes } from '../modules/fingerprint/fingerprint-components';

/**
 * What the visitor flow keeps in the signed session cookie, under its own key so staff
 * sessions in the same cookie are untouched. No raw fingerprint, IP or token: only
 * hashes, the PKCE verifier (useless without the OAuth code) and timestamps.
 */
export interface VisitorSession {
  consentTokenHash?: string;
  consent?: { at: number; fingerprintHash: string; browserTokenHash?: string; components: FingerprintComponentHashes; timezone: string };
  oauth?: { stateHash: string; verifier: string; at: number };
  /** a sign-in the server is still finishing: the id of its job, never the code */
  signIn?: { id: string; at: number };
  verified?: { discordId: string; at: number };
  /** a Discord sign-in made only to see or file an appeal: it identifies, it verifies nothing */
  appellant?: { discordId: string; at: number };
  /** the OAuth round trip of such a sign-in */
  appealSignIn?: { stateHash: string; verifier: string; at: number };
}

const KEY = 'visitor';

export function readVisitor(req: Request): VisitorSession {
  const session = req.session as Record<string, unknown> | null | undefined;
  const value = session?.[KEY];
  return value && typeof value === 'object' ? (value as VisitorSession) : {};
}

export function writeVisitor(req: Request, update: (current: VisitorSession) => VisitorSession): void {
  const next = update({ ...readVisitor(req) });
  if (!req.session) req.session = {};
  (req.session as Record<string, unknown>)[KEY] = next;
}
