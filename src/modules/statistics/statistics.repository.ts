import { sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import type { DayCount, Statistics, StatisticsPeriod } from '../../shared/statistics';

/**
 * The statistics page's numbers: per-day counts over the last 7, 30 or 90 days.
 *
 * Days that are over are read from `statistics_days`, where each is counted once, the
 * first time a page asks for it (one aggregate over the missing days, through the
 * (created_at, …) indexes that hold every column it groups by). Only the current day is
 * counted live, so a read costs about one day of attempts whatever the table's size.
 * A day is "over" 15 minutes after midnight UTC: a verification that started before
 * midnight and commits just after still lands in its day before that day is written.
 * Stored counts stay when retention deletes the attempts behind them.
 */
export { STATISTICS_PERIODS, type StatisticsPeriod } from '../../shared/statistics';

const DAY_MS = 24 * 60 * 60 * 1000;
const LATE_COMMIT_MS = 15 * 60 * 1000;
const PROVIDERS_SHOWN = 8;

type Outcome = 'verified' | 'limited_access' | 'denied';
type Confidence = 'certain' | 'medium' | 'possible';

/** One count of one day: what `statistics_days` stores and what the live counts are turned into. */
interface DayRow {
  day: string;
  series: 'outcome' | 'vpn' | 'vpn_provider' | 'alt_confidence';
  key: string;
  n: number;
}

const startOfUtcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
const isoDay = (at: Date) => at.toISOString().slice(0, 10);
const tsParam = (at: Date) => sql`${at.toISOString()}::timestamptz`;
const dayOf = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`);

/** Every count of the attempts and alt links created in [from, to), per UTC day. */
async function countDays(executor: Executor, from: Date, to: Date | null): Promise<DayRow[]> {
  const until = (column: string) => (to ? sql` and ${sql.raw(column)} < ${tsParam(to)}` : sql``);
  // one scan of the attempts gives the outcomes, the VPN share and the providers
  const attempts = await selectRows<{ day: string; outcome: Outcome; vpn: boolean; provider: string | null; n: number | string }>(
    executor,
    sql`select ${dayOf('created_at')} as day, outcome, coalesce(vpn_verdict not in ('clean', 'unknown'), false) as vpn, vpn_provider as provider, count(*) as n
        from verification_attempts where created_at >= ${tsParam(from)}${until('created_at')} group by 1, 2, 3, 4`,
  );
  const links = await selectRows<{ day: string; confidence: Confidence; n: number | string }>(
    executor,
    sql`select ${dayOf('created_at')} as day, confidence, count(*) as n from alt_links where created_at >= ${tsParam(from)}${until('created_at')} group by 1, 2`,
  );
  const rows: DayRow[] = [];
  for (const a of attempts) {
    const n = Number(a.n);
    rows.push({ day: a.day, series: 'outcome', key: a.outcome, n }, { day: a.day, series: 'vpn', key: 'attempts', n });
    if (a.vpn) rows.push({ day: a.day, series: 'vpn', key: 'vpn', n });
    if (a.provider !== null) rows.push({ day: a.day, series: 'vpn_provider', key: a.provider, n });
  }
  for (const l of links) rows.push({ day: l.day, series: 'alt_confidence', key: l.confidence, n: Number(l.n) });
  return rows;
}

/** Writes the counts of the days in [from, to) not written yet; concurrent readers write the same numbers once. */
async function fillStoredDays(executor: Executor, from: Date, to: Date): Promise<void> {
  const written = new Set(
    (await selectRows<{ day: string }>(executor, sql`select to_char(day, 'YYYY-MM-DD') as day from statistics_days where series = 'day' and day >= ${isoDay(from)}::date and day < ${isoDay(to)}::date`)).map(
      (r) => r.day,
    ),
  );
  const missing: string[] = [];
  for (let t = from.getTime(); t < to.getTime(); t += DAY_MS) if (!written.has(isoDay(new Date(t)))) missing.push(isoDay(new Date(t)));
  if (missing.length === 0) return;
  const first = new Date(`${missing[0]}T00:00:00Z`);
  const last = new Date(`${missing[missing.length - 1]}T00:00:00Z`);
  const wanted = new Set(missing);
  const counted = merge((await countDays(executor, first, new Date(last.getTime() + DAY_MS))).filter((r) => wanted.has(r.day)));
  const rows = [...counted, ...missing.map((day) => ({ day, series: 'day', key: '', n: 0 }))];
  // one parameter (a JSON array), whatever the number of rows
  await executor.execute(
    sql`insert into statistics_days (day, series, key, n)
        select r.day::date, r.series, r.key, r.n from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(day text, series text, key text, n integer)
        on conflict do nothing`,
  );
}

/** Sums rows of the same day, series and key. */
function merge(rows: DayRow[]): DayRow[] {
  const byKey = new Map<string, DayRow>();
  for (const r of rows) {
    const id = `${r.day}\u0000${r.series}\u0000${r.key}`;
    const seen = byKey.get(id);
    if (seen) seen.n += r.n;
    else byKey.set(id, { ...r });
  }
  return [...byKey.values()];
}

function perDay<K extends string>(rows: DayRow[], series: DayRow['series']): DayCount<K>[] {
  const days = new Map<string, Partial<Record<K, number>>>();
  for (const row of rows) {
    if (row.series !== series) continue;
    const counts: Partial<Record<K, number>> = days.get(row.day) ?? {};
    counts[row.key as K] = (counts[row.key as K] ?? 0) + row.n;
    days.set(row.day, counts);
  }
  return [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, counts]) => ({ day, counts }));
}

export async function readStatistics(executor: Executor, now: Date, periodDays: StatisticsPeriod): Promise<Statistics> {
  // from the start of the first UTC day of the period, so every day is whole
  const start = startOfUtcDay(new Date(now.getTime() - (periodDays - 1) * DAY_MS));
  const liveFrom = startOfUtcDay(new Date(now.getTime() - LATE_COMMIT_MS));
  let stored: DayRow[] = [];
  if (start < liveFrom) {
    await fillStoredDays(executor, start, liveFrom);
    stored = (
      await selectRows<{ day: string; series: DayRow['series']; key: string; n: number | string }>(
        executor,
        sql`select to_char(day, 'YYYY-MM-DD') as day, series, key, n from statistics_days where day >= ${isoDay(start)}::date and day < ${isoDay(liveFrom)}::date and series <> 'day'`,
      )
    ).map((r) => ({ ...r, n: Number(r.n) }));
  }
  const live = await countDays(executor, start < liveFrom ? liveFrom : start, null);
  const rows = [...stored, ...live];
  const alarms = await selectRows<{ day: string; n: number | string }>(
    executor,
    sql`select ${dayOf('raised_at')} as day, count(*) as n from raid_alarms where raised_at >= ${tsParam(start)} group by 1 order by 1`,
  );

  const total = (key: string) => rows.reduce((sum, r) => (r.series === 'vpn' && r.key === key ? sum + r.n : sum), 0);
  const providers = new Map<string, number>();
  for (const r of rows) if (r.series === 'vpn_provider') providers.set(r.key, (providers.get(r.key) ?? 0) + r.n);
  return {
    periodDays,
    from: start.toISOString(),
    verificationsPerDay: perDay<Outcome>(rows, 'outcome'),
    altLinksPerDay: perDay<Confidence>(rows, 'alt_confidence'),
    vpn: {
      attempts: total('attempts'),
      vpnAttempts: total('vpn'),
      providers: [...providers]
        .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
        .slice(0, PROVIDERS_SHOWN)
        .map(([provider, attempts]) => ({ provider, attempts })),
    },
    raidAlarmsPerDay: alarms.map((a) => ({ day: a.day, alarms: Number(a.n) })),
  };
}
