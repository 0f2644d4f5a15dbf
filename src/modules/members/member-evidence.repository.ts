import type { AttemptSummary } from '../../shared/admin-api';
import { and, desc, eq, isNotNull } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { COMPARED_COMPONENTS, type ComparedComponent, type FingerprintComponentsView } from '../alts';
import { verificationAttempts } from '../../db/schema';

/** true = matched/validated, false = different/failed, key absent = data unavailable. */
export type FingerprintComponents = FingerprintComponentsView;

/**
 * Which components the member's latest fingerprinted attempt collected. Unreadable
 * components (fallback markers) are stored as null (fingerprint-components.ts), so
 * they show as absent.
 */
export async function latestFingerprintComponents(executor: Executor, memberId: number): Promise<FingerprintComponents> {
  const [row] = await executor
    .select()
    .from(verificationAttempts)
    .where(and(eq(verificationAttempts.memberId, memberId), isNotNull(verificationAttempts.fingerprintHash)))
    .orderBy(desc(verificationAttempts.id))
    .limit(1);
  if (!row) return {};
  const hashes: Record<ComparedComponent, string | null> = {
    canvas: row.canvasHash,
    webgl: row.webglHash,
    audio: row.audioHash,
    fonts: row.fontsHash,
    screen: row.screenHash,
    timezone: row.timezoneHash,
    language: row.languageHash,
    platform: row.platformHash,
  };
  return Object.fromEntries(COMPARED_COMPONENTS.filter((c) => hashes[c] !== null).map((c) => [c, true]));
}

/** One sign-in as staff see it: never an IP hash, only whether one was recorded. */
export type { AttemptSummary };

const ATTEMPTS_SHOWN = 20;

export async function listAttemptSummaries(executor: Executor, memberId: number): Promise<AttemptSummary[]> {
  const rows = await executor
    .select()
    .from(verificationAttempts)
    .where(eq(verificationAttempts.memberId, memberId))
    .orderBy(desc(verificationAttempts.id))
    .limit(ATTEMPTS_SHOWN);
  return rows.map((r) => ({
    at: r.createdAt.toISOString(),
    outcome: r.outcome,
    vpnVerdict: r.vpnVerdict,
    vpnProvider: r.vpnProvider,
    vpnSource: r.vpnSource,
    vpnCheckFailed: r.vpnCheckFailed,
    timezoneMismatch: r.timezoneMismatch,
    ipRecorded: r.ipHash !== null,
    networkRecorded: r.networkHash !== null,
    fingerprintRecorded: r.fingerprintHash !== null,
  }));
}
