import { sql, type SQL } from 'drizzle-orm';
import { COUNTED_ALT_STRENGTHS } from '../../shared/alt-evidence-words';
import { selectRows, type Executor } from '../../db/client';
import {
  type AppealCountKey,
  type DayCount,
  type Statistics,
  type StatisticsPeriod,
  type VerificationCountKey,
  STATISTICS_PERIODS,
} from '../../shared/statistics';

/**
 * The statistics page's numbers: per-day counts over the last 7, 30 or 90 days.
 *
 * What is over is read from stored counts: whole UTC days from `statistics_days`, the
 * current day's whole hours from `statistics_hours`. Each day or hour is counted once,
 * the first time a page asks for it (one aggregate over the missing ones, through the
 * (created_at, …) indexes that hold every column it groups by). Only the last hour is
 * counted live, so a read costs about an hour of attempts whatever the table's size.
 * Appeals are counted the same way (filed by created_at, decided by decided_at); their
 * stored counts stay when the appeal goes with its member.
 * A day or hour is "over" 15 minutes after it ended: a verification that started before
 * and commits just after still lands in it before it is written. Stored counts stay when
 * retention deletes the attempts behind them.
 */
export { STATISTICS_PERIODS, type StatisticsPeriod };

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const LATE_COMMIT_MS = 15 * 60 * 1000;
const PROVIDERS_SHOWN = 8;

type Outcome = VerificationCountKey;
/** the tiers that count as alts: a possible link is evidence, never counted (alt-evidence-words.ts) */
type Confidence = 'certain' | 'medium';
type Unit = 'day' | 'hour';

/** One count of one day or hour ('YYYY-MM-DD' / 'YYYY-MM-DDTHH'): what the stored tables hold and the live counts become. */
interface CountRow {
  bucket: string;
  series: 'outcome' | 'vpn' | 'vpn_provider' | 'alt_confidence' | 'appeal';
  key: string;
  n: number;
}

const UNIT_MS: Record<Unit, number> = { day: DAY_MS, hour: HOUR_MS };
const startOf = (unit: Unit, at: Date) => new Date(Math.floor(at.getTime() / UNIT_MS[unit]) * UNIT_MS[unit]);
const bucketOf = (unit: Unit, at: Date) => at.toISOString().slice(0, unit === 'day' ? 10 : 13);
const tsParam = (at: Date) => sql`${at.toISOString()}::timestamptz`;
const bucketSql = (unit: Unit, column: string) =>
  sql.raw(`to_char(${column} at time zone 'UTC', '${unit === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM-DD"T"HH24'}')`);
/** The stored table of a unit, its bucket column as a bucket string, and a bucket string as its column's type. */
const STORE = {
  day: {
    table: sql.raw('statistics_days'),
    column: sql.raw('day'),
    bucket: sql.raw(`to_char(day, 'YYYY-MM-DD')`),
    fromText: (v: SQL) => sql`(${v})::date`,
  },
  hour: {
    table: sql.raw('statistics_hours'),
    column: sql.raw('hour'),
    bucket: sql.raw(`to_char(hour at time zone 'UTC', 'YYYY-MM-DD"T"HH24')`),
    fromText: (v: SQL) => sql`((${v}) || ':00:00Z')::timestamptz`,
  },
} as const;
const storedParam = (unit: Unit, at: Date) => STORE[unit].fromText(sql`${bucketOf(unit, at)}`);

/** Every count of the attempts, refusals, alt links and appeals of [from, to), per day or hour. */
async function countBuckets(executor: Executor, unit: Unit, from: Date, to: Date | null): Promise<CountRow[]> {
  const until = to ? sql` and created_at < ${tsParam(to)}` : sql``;
  // one scan of the attempts gives the outcomes, the VPN share and the providers
  const attempts = await selectRows<{ bucket: string; outcome: Outcome; vpn: boolean; provider: string | null; n: number | string }>(
    executor,
    sql`select ${bucketSql(unit, 'created_at')} as bucket, outcome, coalesce(vpn_verdict not in ('clean', 'unknown'), false) as vpn, vpn_provider as provider, count(*) as n
        from verification_attempts where created_at >= ${tsParam(from)}${until} group by 1, 2, 3, 4`,
  );
  // the few that ended denied as a certain alt or held for review move from their outcome's key to that one
  const ended = await selectRows<{ bucket: string; outcome: Outcome; ended_as: 'denied_alt' | 'pending'; n: number | string }>(
    executor,
    sql`select ${bucketSql(unit, 'created_at')} as bucket, outcome, ended_as, count(*) as n
        from verification_attempts where ended_as is not null and created_at >= ${tsParam(from)}${until} group by 1, 2, 3`,
  );
  // a verification refused by the VPN-check failure policy makes no attempt: its audit row is its record
  const untilAt = to ? sql` and at < ${tsParam(to)}` : sql``;
  const refused = await selectRows<{ bucket: string; n: number | string }>(
    executor,
    sql`select ${bucketSql(unit, 'at')} as bucket, count(*) as n from audit_log where at >= ${tsParam(from)}${untilAt} and action = 'verification.denied' group by 1`,
  );
  const links = await selectRows<{ bucket: string; confidence: Confidence; n: number | string }>(
    executor,
    sql`select ${bucketSql(unit, 'created_at')} as bucket, confidence, count(*) as n from alt_links
        where created_at >= ${tsParam(from)}${until} and confidence in (${sql.join(
          COUNTED_ALT_STRENGTHS.map((c) => sql`${c}`),
          sql`, `,
        )}) group by 1, 2`,
  );
  // an appeal counts as submitted when it was filed and as approved / rejected when it was decided
  const untilDecided = to ? sql` and decided_at < ${tsParam(to)}` : sql``;
  const appeals = await selectRows<{ bucket: string; key: AppealCountKey; n: number | string }>(
    executor,
    sql`select ${bucketSql(unit, 'created_at')} as bucket, 'submitted' as key, count(*) as n from appeals where created_at >= ${tsParam(from)}${until} group by 1
        union all
        select ${bucketSql(unit, 'decided_at')} as bucket, status as key, count(*) as n from appeals
        where decided_at >= ${tsParam(from)}${untilDecided} and status in ('approved', 'rejected') group by 1, 2`,
  );
  const rows: CountRow[] = [];
  for (const a of attempts) {
    const n = Number(a.n);
    rows.push({ bucket: a.bucket, series: 'outcome', key: a.outcome, n }, { bucket: a.bucket, series: 'vpn', key: 'attempts', n });
    if (a.vpn) rows.push({ bucket: a.bucket, series: 'vpn', key: 'vpn', n });
    if (a.provider !== null) rows.push({ bucket: a.bucket, series: 'vpn_provider', key: a.provider, n });
  }
  for (const e of ended)
    rows.push(
      { bucket: e.bucket, series: 'outcome', key: e.outcome, n: -Number(e.n) },
      { bucket: e.bucket, series: 'outcome', key: e.ended_as, n: Number(e.n) },
    );
  for (const r of refused) rows.push({ bucket: r.bucket, series: 'outcome', key: 'denied', n: Number(r.n) });
  for (const l of links) rows.push({ bucket: l.bucket, series: 'alt_confidence', key: l.confidence, n: Number(l.n) });
  for (const a of appeals) rows.push({ bucket: a.bucket, series: 'appeal', key: a.key, n: Number(a.n) });
  // an outcome whose every attempt ended denied or held counts nothing
  return merge(rows).filter((r) => r.n !== 0);
}

/** Writes the counts of the days (hours) in [from, to) not written yet; concurrent readers write the same numbers once. */
async function fillStored(executor: Executor, unit: Unit, from: Date, to: Date): Promise<void> {
  const store = STORE[unit];
  const written = new Set(
    (
      await selectRows<{ bucket: string }>(
        executor,
        sql`select ${store.bucket} as bucket from ${store.table} where series = ${unit} and ${store.column} >= ${storedParam(unit, from)} and ${store.column} < ${storedParam(unit, to)}`,
      )
    ).map((r) => r.bucket),
  );
  const missing: string[] = [];
  for (let t = from.getTime(); t < to.getTime(); t += UNIT_MS[unit])
    if (!written.has(bucketOf(unit, new Date(t)))) missing.push(bucketOf(unit, new Date(t)));
  if (missing.length === 0) return;
  const first = startOf(unit, new Date(Date.parse(`${missing[0]}${unit === 'day' ? 'T00' : ''}:00:00Z`)));
  const last = startOf(unit, new Date(Date.parse(`${missing[missing.length - 1]}${unit === 'day' ? 'T00' : ''}:00:00Z`)));
  const wanted = new Set(missing);
  const counted = merge(
    (await countBuckets(executor, unit, first, new Date(last.getTime() + UNIT_MS[unit]))).filter((r) => wanted.has(r.bucket)),
  );
  const rows = [...counted, ...missing.map((bucket) => ({ bucket, series: unit, key: '', n: 0 }))];
  // one parameter (a JSON array), whatever the number of rows
  await executor.execute(
    sql`insert into ${store.table} (${store.column}, series, key, n)
        select ${store.fromText(sql.raw('r.bucket'))}, r.series, r.key, r.n from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(bucket text, series text, key text, n integer)
        on conflict do nothing`,
  );
  // hours are kept while their day is the current one (and a day more): its day row has them by then
  if (unit === 'hour')
    await executor.execute(sql`delete from statistics_hours where hour < ${tsParam(new Date(startOf('day', from).getTime() - DAY_MS))}`);
}

/** The stored counts of [from, to), summed per day. */
async function readStored(executor: Executor, unit: Unit, from: Date, to: Date): Promise<CountRow[]> {
  const store = STORE[unit];
  const rows = await selectRows<{ day: string; series: CountRow['series']; key: string; n: number | string }>(
    executor,
    sql`select substr(${store.bucket}, 1, 10) as day, series, key, sum(n) as n from ${store.table}
        where ${store.column} >= ${storedParam(unit, from)} and ${store.column} < ${storedParam(unit, to)} and series <> ${unit} group by 1, 2, 3`,
  );
  return rows.map((r) => ({ bucket: r.day, series: r.series, key: r.key, n: Number(r.n) }));
}

/** Sums rows of the same bucket, series and key. */
function merge(rows: CountRow[]): CountRow[] {
  const byKey = new Map<string, CountRow>();
  for (const r of rows) {
    const id = `${r.bucket}\u0000${r.series}\u0000${r.key}`;
    const seen = byKey.get(id);
    if (seen) seen.n += r.n;
    else byKey.set(id, { ...r });
  }
  return [...byKey.values()];
}

/** Per-day counts of one series; rows may be per hour ('YYYY-MM-DDTHH'): they add up into their day. */
function perDay<K extends string>(rows: CountRow[], series: CountRow['series']): DayCount<K>[] {
  const days = new Map<string, Partial<Record<K, number>>>();
  for (const row of rows) {
    if (row.series !== series) continue;
    const day = row.bucket.slice(0, 10);
    const counts: Partial<Record<K, number>> = days.get(day) ?? {};
    counts[row.key as K] = (counts[row.key as K] ?? 0) + row.n;
    days.set(day, counts);
  }
  return [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, counts]) => ({ day, counts }));
}

export async function readStatistics(executor: Executor, now: Date, periodDays: StatisticsPeriod): Promise<Statistics> {
  // from the start of the first UTC day of the period, so every day is whole
  const start = startOf('day', new Date(now.getTime() - (periodDays - 1) * DAY_MS));
  const settled = new Date(now.getTime() - LATE_COMMIT_MS);
  // stored days before liveDay, stored hours from there to liveHour, live counts after
  const liveDay = new Date(Math.max(start.getTime(), startOf('day', settled).getTime()));
  const liveHour = new Date(Math.max(liveDay.getTime(), startOf('hour', settled).getTime()));
  const rows: CountRow[] = [];
  if (start < liveDay) {
    await fillStored(executor, 'day', start, liveDay);
    rows.push(...(await readStored(executor, 'day', start, liveDay)));
  }
  if (liveDay < liveHour) {
    await fillStored(executor, 'hour', liveDay, liveHour);
    rows.push(...(await readStored(executor, 'hour', liveDay, liveHour)));
  }
  rows.push(...(await countBuckets(executor, 'hour', liveHour, null)));
  const alarms = await selectRows<{ day: string; n: number | string }>(
    executor,
    sql`select ${bucketSql('day', 'raised_at')} as day, count(*) as n from raid_alarms where raised_at >= ${tsParam(start)} group by 1 order by 1`,
  );

  const total = (key: string) => rows.reduce((sum, r) => (r.series === 'vpn' && r.key === key ? sum + r.n : sum), 0);
  const providers = new Map<string, number>();
  for (const r of rows) if (r.series === 'vpn_provider') providers.set(r.key, (providers.get(r.key) ?? 0) + r.n);
  return {
    periodDays,
    from: start.toISOString(),
    verificationsPerDay: perDay<Outcome>(rows, 'outcome'),
    // days stored before possible links stopped being counted may hold them: they are left out here too
    altLinksPerDay: perDay<Confidence>(
      rows.filter((r) => r.series !== 'alt_confidence' || COUNTED_ALT_STRENGTHS.some((c) => c === r.key)),
      'alt_confidence',
    ),
    vpn: {
      attempts: total('attempts'),
      vpnAttempts: total('vpn'),
      providers: [...providers]
        .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, PROVIDERS_SHOWN)
        .map(([provider, attempts]) => ({ provider, attempts })),
    },
    appealsPerDay: perDay<AppealCountKey>(rows, 'appeal'),
    raidAlarmsPerDay: alarms.map((a) => ({ day: a.day, alarms: Number(a.n) })),
  };
}
