import { desc, gte, sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { DISCORD_EPOCH_MS } from '../../shared/discord-snowflake';
import { raidAlarms } from '../../db/schema';
import type { RaidAlarm, RaidReason } from '../../shared/admin-api';
import type { RaidVerdict, RaidWindow } from './raid-rules';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the window's statement answers: its numbers, counted by the database. */
export interface RaidWindowRow {
  previous_day: number | string;
  verifications: number | string;
  young: number | string;
  shared: number | string;
}

/** An attempt as the raid window counts it: whose it is, and the device profile and address hashes it carries. */
export interface WindowAttempt {
  discordId: string;
  fingerprintHash: string | null;
  ipHash: string | null;
}

const MS_PER_DAY = 86_400_000;

/**
 * The statement that counts the window ending at `now`: one row, whatever the window
 * holds, so other reads can share its round trip. The counting is the database's, in one
 * pass over the window's attempts (their index on created_at): during a raid the window
 * holds thousands of attempts, and each verification reads it, so shipping its rows to
 * be counted here made every verification slower as the raid grew.
 *
 *  - verifications: the window's attempts;
 *  - young: of those, accounts younger than `youngDays` full days, from the snowflake's
 *    timestamp (`snowflakeTimestamp` in src/shared/discord-snowflake.ts: the top 42 bits,
 *    milliseconds since 2015-01-01, i.e. id / 2^22 + DISCORD_EPOCH_MS; `accountAgeDays`);
 *  - shared: of those, attempts whose device profile (fingerprint hash) or address (IP
 *    hash) another member's attempt in the window also carries. Members are told apart
 *    by Discord ID (one member per ID).
 *
 * `written`: an attempt the same statement writes, which its snapshot cannot see yet
 * (the sign-in's): counted in as one more attempt of the window.
 */
export function raidWindowQuery(now: Date, windowMinutes: number, youngDays: number, written?: WindowAttempt): SQL {
  const from = new Date(now.getTime() - windowMinutes * 60_000);
  const dayBefore = new Date(from.getTime() - DAY_MS);
  const writtenRow = written ? sql` union all select ${written.discordId}::text, ${written.fingerprintHash}::text, ${written.ipHash}::text` : sql``;
  // an id that is not a snowflake has no age: never young (Discord's ids always are)
  const createdMs = sql`case when w.d ~ '^[0-9]{1,20}$' then floor(w.d::numeric / 4194304) + ${Number(DISCORD_EPOCH_MS)}::numeric end`;
  return sql`with w (d, f, i) as (
        select m.discord_id, a.fingerprint_hash, a.ip_hash
          from verification_attempts a join members m on m.id = a.member_id
         where a.created_at > ${from.toISOString()}::timestamptz and a.created_at <= ${now.toISOString()}::timestamptz${writtenRow}
      ),
      shared_profiles as (select f from w where f is not null group by f having count(distinct d) > 1),
      shared_addresses as (select i from w where i is not null group by i having count(distinct d) > 1)
    select
      (select count(*) from verification_attempts where created_at > ${dayBefore.toISOString()}::timestamptz and created_at <= ${from.toISOString()}::timestamptz) as previous_day,
      count(*) as verifications,
      count(*) filter (where ${now.getTime()}::numeric - ${createdMs} < ${youngDays * MS_PER_DAY}::numeric) as young,
      count(*) filter (where w.f in (select f from shared_profiles) or w.i in (select i from shared_addresses)) as shared
    from w`;
}

/** The window's numbers from its statement's row (see `raidWindowQuery`). */
export function raidWindowFrom(row: RaidWindowRow | undefined): RaidWindow {
  return {
    verifications: Number(row?.verifications ?? 0),
    previousDay: Number(row?.previous_day ?? 0),
    young: Number(row?.young ?? 0),
    shared: Number(row?.shared ?? 0),
  };
}

/** The numbers of the window ending at `now`, in one statement (see `raidWindowFrom`). */
export async function readRaidWindow(executor: Executor, now: Date, windowMinutes: number, youngDays: number): Promise<RaidWindow> {
  const [row] = await selectRows<RaidWindowRow>(executor, raidWindowQuery(now, windowMinutes, youngDays));
  return raidWindowFrom(row);
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
