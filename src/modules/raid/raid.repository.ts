import { desc, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { raidAlarms } from '../../db/schema';
import type { RaidAlarm, RaidReason } from '../../shared/admin-api';
import type { RaidVerdict, RaidWindow } from './raid-rules';
import { DAY_MS } from '../../shared/durations';

/** What the window's statement answers: its numbers, counted by the database. */
export interface RaidWindowRow {
  previous_day: number | string;
  verifications: number | string;
  young: number | string;
  shared: number | string;
}

/** An attempt as the raid window counts it: whose it is, and the device profile and address hashes it carries. */
export interface WindowAttempt {
  /** the member's id; an SQL expression when the same statement writes the member (the sign-in's `signed_in`) */
  memberId: number | SQL;
  /** the member's Discord id: the account's age is read from it (discord_account_created_at) */
  discordId: string;
  fingerprintHash: string | null;
  ipHash: string | null;
}

/**
 * The statement that counts the window ending at `now`: one row, whatever the window
 * holds, so other reads can share its round trip. The counting is the database's, in one
 * pass over the window's attempts (their index on created_at), and it reads nothing but
 * those attempts: each verification runs it, and during a raid the window holds thousands
 * of attempts, so every row it touches per attempt is paid thousands of times a minute.
 *
 *  - verifications: the window's attempts;
 *  - young: of those, accounts created less than `youngDays` full days before `now`. The
 *    attempt keeps its account's creation time (account_created_at, written from the
 *    Discord id by discord_account_created_at in src/db/functions: the snowflake's
 *    timestamp), so the members table is not joined;
 *  - shared: of those, attempts whose device profile (fingerprint hash) or address (IP
 *    hash) another member's attempt in the window also carries. Members are told apart
 *    by member id (one member per Discord ID); "another member" is a group whose smallest
 *    and largest member id differ, which needs no per-group sort as count(distinct) would.
 *
 * `written`: an attempt the same statement writes, which its snapshot cannot see yet
 * (the sign-in's): counted in as one more attempt of the window.
 *
 * `lazy` lets the statement skip what its caller will not read:
 *  - `minVerifications`: the 24 hours before the window (previous_day, a count of every
 *    attempt of a day, the largest part of the statement on a busy server) are counted
 *    only when the window holds at least that many verifications, the least that can raise
 *    an alarm (evaluateRaid); below it previous_day is null;
 *  - `unless`: a boolean expression; when it holds, no attempt is read (the counts are 0,
 *    as of an empty window; PostgreSQL tests it once, before the window's scan). The
 *    admission read gives "an alarm stands": no second alarm is raised in a window, so
 *    during a raid, once its alarm is up, a verification stops paying for a window of
 *    thousands of attempts;
 *  - `previousDay`: the day before, counted already (a recent count the caller keeps, see
 *    previous-day-count.ts): written as a number, nothing of the day is read.
 */
export function raidWindowQuery(
  now: Date,
  windowMinutes: number,
  youngDays: number,
  written?: WindowAttempt,
  lazy: { minVerifications?: number; unless?: SQL; previousDay?: number } = {},
): SQL {
  const from = new Date(now.getTime() - windowMinutes * 60_000);
  const dayBefore = new Date(from.getTime() - DAY_MS);
  // created after this instant: younger than youngDays full days (milliseconds, so no calendar day or DST enters)
  const youngSince = new Date(now.getTime() - youngDays * DAY_MS);
  const writtenRow = written
    ? sql` union all select ${written.memberId}::bigint, discord_account_created_at(${written.discordId}::text), ${written.fingerprintHash}::text, ${written.ipHash}::text`
    : sql``;
  const previousDay =
    lazy.previousDay === undefined
      ? sql`(select count(*) from verification_attempts where created_at > ${dayBefore.toISOString()}::timestamptz and created_at <= ${from.toISOString()}::timestamptz)`
      : sql`${lazy.previousDay}::bigint`;
  // an uncorrelated subquery in a CASE runs only when its branch is taken (PostgreSQL evaluates it on first use)
  const previousDayColumn =
    lazy.minVerifications === undefined ? previousDay : sql`case when count(*) >= ${lazy.minVerifications}::int then ${previousDay} end`;
  return sql`with w (m, c, f, i) as (
        select a.member_id, a.account_created_at, a.fingerprint_hash, a.ip_hash
          from verification_attempts a
         where a.created_at > ${from.toISOString()}::timestamptz and a.created_at <= ${now.toISOString()}::timestamptz${writtenRow}
      ),
      shared_profiles as (select f from w where f is not null group by f having min(m) < max(m)),
      shared_addresses as (select i from w where i is not null group by i having min(m) < max(m))
    select
      ${previousDayColumn} as previous_day,
      count(*) as verifications,
      count(*) filter (where w.c > ${youngSince.toISOString()}::timestamptz) as young,
      count(*) filter (where w.f in (select f from shared_profiles) or w.i in (select i from shared_addresses)) as shared
    from w${lazy.unless ? sql` where not ${lazy.unless}` : sql``}`;
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

/**
 * Whether an alarm was raised less than one window before `now` (one alarm per window: while
 * it stands, no new one is raised), as a boolean expression: the admission read asks it in
 * the sign-in's statement, so a verification during a raid makes no extra round trip.
 */
export function alarmStandingQuery(now: Date, windowMinutes: number): SQL {
  const since = new Date(now.getTime() - windowMinutes * 60_000);
  return sql`exists (select 1 from ${raidAlarms} where ${raidAlarms.raisedAt} >= ${since.toISOString()}::timestamptz)`;
}

export async function insertRaidAlarm(
  executor: Executor,
  input: { now: Date; windowMinutes: number; window: RaidWindow; verdict: RaidVerdict; lockdownStarted: boolean },
) {
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
