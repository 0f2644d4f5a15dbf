import { desc, gte, sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { raidAlarms } from '../../db/schema';
import { accountAgeDays } from '../admission/admission-rules';
import type { RaidAlarm, RaidReason } from '../../shared/admin-api';
import type { RaidVerdict, RaidWindow } from './raid-rules';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The numbers of the window ending at `now`. Only hashes are compared: a device profile
 * (fingerprint hash) or an address (IP hash) counts as shared when attempts of two
 * different members in the window carry it.
 */
export async function readRaidWindow(executor: Executor, now: Date, windowMinutes: number, youngDays: number): Promise<RaidWindow> {
  const from = new Date(now.getTime() - windowMinutes * 60_000);
  const dayBefore = new Date(from.getTime() - DAY_MS);
  const rows = await selectRows<{ member_id: number | string; discord_id: string; fingerprint_hash: string | null; ip_hash: string | null }>(
    executor,
    sql`select a.member_id, m.discord_id, a.fingerprint_hash, a.ip_hash
          from verification_attempts a join members m on m.id = a.member_id
         where a.created_at > ${from.toISOString()}::timestamptz and a.created_at <= ${now.toISOString()}::timestamptz`,
  );
  const [previous] = await selectRows<{ n: number | string }>(
    executor,
    sql`select count(*) as n from verification_attempts where created_at > ${dayBefore.toISOString()}::timestamptz and created_at <= ${from.toISOString()}::timestamptz`,
  );
  const membersOf = new Map<string, Set<string>>();
  for (const row of rows) {
    for (const hash of [row.fingerprint_hash && `f:${row.fingerprint_hash}`, row.ip_hash && `i:${row.ip_hash}`]) {
      if (!hash) continue;
      const set = membersOf.get(hash) ?? new Set<string>();
      set.add(String(row.member_id));
      membersOf.set(hash, set);
    }
  }
  const sharedBy = (hash: string | null, prefix: string) => hash !== null && (membersOf.get(`${prefix}:${hash}`)?.size ?? 0) > 1;
  return {
    verifications: rows.length,
    previousDay: Number(previous?.n ?? 0),
    young: rows.filter((r) => accountAgeDays(r.discord_id, now) < youngDays).length,
    shared: rows.filter((r) => sharedBy(r.fingerprint_hash, 'f') || sharedBy(r.ip_hash, 'i')).length,
  };
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
