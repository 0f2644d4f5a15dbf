import { desc, eq, sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { verificationAttempts } from '../../db/schema';
import { STORED_FINGERPRINT_COMPONENTS } from '../../shared/fingerprint';

/** The device components whose hashes an attempt may hold. */
export const STORED_COMPONENTS = STORED_FINGERPRINT_COMPONENTS;
export type StoredComponent = (typeof STORED_COMPONENTS)[number];

/** What one stored sign-in holds, as its owner may see it: which hashes exist, never their values. */
export interface StoredAttempt {
  at: Date;
  outcome: 'verified' | 'limited_access' | 'denied';
  vpnVerdict: string;
  vpnProvider: string | null;
  vpnCheckFailed: boolean;
  timezoneMismatch: boolean;
  ipHashStored: boolean;
  networkHashStored: boolean;
  fingerprintHashStored: boolean;
  /** a keyed hash of the browser token (the same-browser signal) */
  browserTokenHashStored: boolean;
  componentHashesStored: StoredComponent[];
}

/** The newest attempts of a member, newest first. */
export async function listStoredAttempts(executor: Executor, memberId: number, limit: number): Promise<StoredAttempt[]> {
  const rows = await executor
    .select()
    .from(verificationAttempts)
    .where(eq(verificationAttempts.memberId, memberId))
    .orderBy(desc(verificationAttempts.id))
    .limit(limit);
  return rows.map((r) => {
    const hashes: Record<StoredComponent, string | null> = {
      canvas: r.canvasHash,
      webgl: r.webglHash,
      audio: r.audioHash,
      fonts: r.fontsHash,
      screen: r.screenHash,
      timezone: r.timezoneHash,
      language: r.languageHash,
      platform: r.platformHash,
      hardware: r.hardwareHash,
    };
    return {
      at: r.createdAt,
      outcome: r.outcome,
      vpnVerdict: r.vpnVerdict,
      vpnProvider: r.vpnProvider,
      vpnCheckFailed: r.vpnCheckFailed,
      timezoneMismatch: r.timezoneMismatch,
      ipHashStored: r.ipHash !== null,
      networkHashStored: r.networkHash !== null,
      fingerprintHashStored: r.fingerprintHash !== null,
      browserTokenHashStored: r.browserTokenHash !== null,
      componentHashesStored: STORED_COMPONENTS.filter((c) => hashes[c] !== null),
    };
  });
}

export interface MemberRecordCounts {
  attempts: number;
  altLinks: number;
  notes: number;
  /** Discord actions about the account still waiting in the outbox */
  pendingDiscordActions: number;
}

export async function countMemberRecords(executor: Executor, member: { id: number; discordId: string }): Promise<MemberRecordCounts> {
  const [row] = await selectRows<{ attempts: string | number; links: string | number; notes: string | number; outbox: string | number }>(
    executor,
    sql`select
      (select count(*) from verification_attempts where member_id = ${member.id}) as attempts,
      (select count(*) from alt_links where main_member_id = ${member.id} or alt_member_id = ${member.id}) as links,
      (select count(*) from admin_notes where member_id = ${member.id}) as notes,
      (select count(*) from discord_outbox where discord_id = ${member.discordId} and status in ('pending', 'running')) as outbox`,
  );
  return {
    attempts: Number(row?.attempts ?? 0),
    altLinks: Number(row?.links ?? 0),
    notes: Number(row?.notes ?? 0),
    pendingDiscordActions: Number(row?.outbox ?? 0),
  };
}
