import crypto from 'node:crypto';
import type { Request } from 'express';
import type { FingerprintComponentHashes } from '../modules/fingerprint';

/**
 * What the visitor flow keeps in the signed session cookie, under its own key so staff
 * sessions in the same cookie are untouched. No raw fingerprint, IP or token: only
 * hashes, the PKCE verifier (useless without the OAuth code) and timestamps.
 */
export interface VisitorSession {
  consentTokenHash?: string;
  consent?: {
    at: number;
    fingerprintHash: string;
    browserTokenHash?: string;
    components: FingerprintComponentHashes;
    timezone: string;
    stockProfile?: boolean;
  };
  oauth?: { stateHash: string; verifier: string; at: number };
  /**
   * a sign-in the server is still finishing: the id of its job ('' when another web process runs it), a hash of
   * its callback's state and code (never the code), and of its state alone (its stored outcome's key)
   */
  signIn?: { id: string; callbackHash: string; stateHash?: string; at: number };
  /** where the last sign-in's callback ended: the same callback again (a reload, a double click) lands there again */
  callback?: { callbackHash: string; landedOn: '/rules' | '/error' | '/oauth/retry' };
  verified?: { discordId: string; at: number };
  /** a Discord sign-in made only to see or file an appeal: it identifies, it verifies nothing */
  appellant?: { discordId: string; at: number };
  /** the OAuth round trip of such a sign-in */
  appealSignIn?: { stateHash: string; verifier: string; at: number };
  /** where the last appeal sign-in's callback ended: the same callback again lands there again */
  appealCallback?: { callbackHash: string; landedOn: '/appeal' | '/appeal?signIn=failed' };
  /** the Linked Roles sign-in under way (GET /linked-roles): its state and PKCE verifier */
  linkedRolesSignIn?: { stateHash: string; verifier: string; at: number };
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

/**
 * A random id for this browser's session, kept beside the visitor's state (whose rewrites do
 * not touch it) and used only to key its rate limit (middleware/visitor-limit.ts). It lives
 * in the signed cookie, so a client cannot choose one: it must be given one by the server.
 */
const ID_KEY = 'visitorId';
const ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** The session's visitor id; null for a browser that has none yet (or sends no cookie). */
export function readVisitorId(req: Request): string | null {
  const session = req.session as Record<string, unknown> | null | undefined;
  const id = session?.[ID_KEY];
  return typeof id === 'string' && ID_PATTERN.test(id) ? id : null;
}

/** Gives the session a new visitor id (the response sets the cookie); the id. */
export function assignVisitorId(req: Request): string {
  const id = crypto.randomBytes(16).toString('base64url');
  if (!req.session) req.session = {};
  (req.session as Record<string, unknown>)[ID_KEY] = id;
  return id;
}
