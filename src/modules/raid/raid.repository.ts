import { desc, gte, sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { raidAlarms } from '../../db/schema';
import { accountAgeDays } from '../admission/admission-rules';
import type { RaidAlarm, RaidReason } from '../../shared/admin-api';
import type { RaidVerdict, RaidWindow } from './raid-rules';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the window's statement answers: the attempts of the window (as JSON, one value) and the count of the day before. */
export interface RaidWindowRow {
  previous_day: number | string;
  /** [member id, Discord ID, fingerprint hash, IP hash] per attempt of the window */
  window_rows: [number | string, string, string | null, string | null][] | null;
}

/**
 * The statement that reads the window ending at `now`: one row, whatever the window holds,
 * so other reads can share its round trip (`raidWindowFrom` turns it into the numbers).
 * The attempts come back as one JSON value: cheaper to decode than a row per attempt.
 */
export function raidWindowQuery(now: Date, windowMinutes: number): SQL {
  const from = new Date(now.getTime() - windowMinutes * 60_000);
  const dayBefore = new Date(from.getTime() - DAY_MS);
  return sql`select
      (select count(*) from verification_attempts where created_at > ${dayBefore.toISOString()}::timestamptz and created_at <= ${from.toISOString()}::timestamptz) as previous_day,
      (select json_agg(json_build_array(a.member_id, m.discord_id, a.fingerprint_hash, a.ip_hash))
         from verification_attempts a join members m on m.id = a.member_id
        where a.created_at > ${from.toISOString()}::timestamptz and a.created_at <= ${now.toISOString()}::timestamptz) as window_rows`;
}

/**
 * The numbers of the window ending at `now`. Only hashes are compared: a device profile
 * (fingerprint hash) or an address (IP hash) counts as shared when attempts of two
 * different members in the window carry it.
 */
export function raidWindowFrom(row: RaidWindowRow | undefined, now: Date, youngDays: number): RaidWindow {
  const rows = (row?.window_rows ?? []).map(([memberId, discordId, fingerprintHash, ipHash]) => ({ memberId: String(memberId), discordId, fingerprintHash, ipHash }));
  const membersOf = new Map<string, Set<string>>();
  for (const attempt of rows) {
    for (const hash of [attempt.fingerprintHash && `f:${attempt.fingerprintHash}`, attempt.ipHash && `i:${attempt.ipHash}`]) {
      if (!hash) continue;
      const set = membersOf.get(hash) ?? new Set<string>();
      set.add(attempt.memberId);
      membersOf.set(hash, set);
    }
  }
  const sharedBy = (hash: string | null, prefix: string) => hash !== null && (membersOf.get(`${prefix}:${hash}`)?.size ?? 0) > 1;
  return {
    verifications: rows.length,
    previousDay: Number(row?.previous_day ?? 0),
    young: rows.filter((r) => accountAgeDays(r.discordId, now) < youngDays).length,
    shared: rows.filter((r) => sharedBy(r.fingerprintHash, 'f') || sharedBy(r.ipHash, 'i')).length,
  };
}

/** The numbers of the window ending at `now`, in one statement (see `raidWindowFrom`). */
export async function readRaidWindow(executor: Executor, now: Date, windowMinutes: number, youngDays: number): Promise<RaidWindow> {
  const [row] = await selectRows<RaidWindowRow>(executor, raidWindowQuery(now, windowMinutes));
  return raidWindowFrom(row, now, youngDays);
}

export async function lastAlarmSince(executor: Executor, since: Date): Promise<boolean> {
  const [row] = await executor.select({ id: raidAlarms.id }).from(raidAlarms).where(gte(raidAlarms.raisedAt, since)).limit(1);
  return row !== undefined;
}

export async function insertRaidAlarm(executor: Executor, input: { now: Date; windowMinutes: number; window: RaidWindow; verdict: RaidVerdict; lockdownStarted: boolean }) {
  const [row] = await executor
    .insert(raidAlarms)
    .values({
      raisedAt: input.now,
      windowMinutes: input.windowMinutes,
      verifications: input.window.verifications,
      baselineX100: Math.round(input.verdict.baseline * 100),
      youngPercent: input.verdict.youngPercent,
      sharedPercent: input.verdict.sharedPercent,
      reasons: input.verdict.reasons,
      lockdownStarted: input.lockdownStarted,
    })
    .returning();
  return row!;
}

export async function recentRaidAlarms(executor: Executor, limit = 5): Promise<RaidAlarm[]> {
  const rows = await executor.select().from(raidAlarms).orderBy(desc(raidAlarms.raisedAt)).limit(limit);
  return rows.map((r) => ({
    id: r.id,
    raisedAt: r.raisedAt.toISOString(),
    windowMinutes: r.windowMinutes,
    verifications: r.verifications,
    baseline: r.baselineX100 / 100,
    youngPercent: r.youngPercent,
    sharedPercent: r.sharedPercent,
    reasons: r.reasons as RaidReason[],
    lockdownStarted: r.lockdownStarted,
  }));
}
