import { sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import type { DayCount, Statistics, StatisticsPeriod } from '../../shared/statistics';

/**
 * The statistics page's numbers: per-day counts over the last 7, 30 or 90 days. Each is
 * one aggregate over a time range read through an index on (created_at, …) that holds
 * every column it groups by, so the cost follows the period's rows, not the table's.
 */

export { STATISTICS_PERIODS, type StatisticsPeriod } from '../../shared/statistics';

const DAY_MS = 24 * 60 * 60 * 1000;

function byDay<K extends string>(rows: { day: string; key: K; n: number | string }[]): DayCount<K>[] {
  const days = new Map<string, Partial<Record<K, number>>>();
  for (const row of rows) {
    const counts: Partial<Record<K, number>> = days.get(row.day) ?? {};
    counts[row.key] = Number(row.n);
    days.set(row.day, counts);
  }
  return [...days].map(([day, counts]) => ({ day, counts }));
}

export async function readStatistics(executor: Executor, now: Date, periodDays: StatisticsPeriod): Promise<Statistics> {
  // from the start of the first UTC day of the period, so every day is whole
  const start = new Date(now.getTime() - (periodDays - 1) * DAY_MS);
  start.setUTCHours(0, 0, 0, 0);
  const from = sql`${start.toISOString()}::timestamptz`;
  const day = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`);

  const verifications = await selectRows<{ day: string; key: 'verified' | 'limited_access' | 'denied'; n: number | string }>(
    executor,
    sql`select ${day('created_at')} as day, outcome as key, count(*) as n from verification_attempts where created_at >= ${from} group by 1, 2 order by 1`,
  );
  const links = await selectRows<{ day: string; key: 'certain' | 'medium' | 'possible'; n: number | string }>(
    executor,
    sql`select ${day('created_at')} as day, confidence as key, count(*) as n from alt_links where created_at >= ${from} group by 1, 2 order by 1`,
  );
  const [vpnTotals] = await selectRows<{ attempts: number | string; vpn: number | string }>(
    executor,
    sql`select count(*) as attempts, count(*) filter (where vpn_verdict not in ('clean', 'unknown')) as vpn from verification_attempts where created_at >= ${from}`,
  );
  const providers = await selectRows<{ provider: string; n: number | string }>(
    executor,
    sql`select vpn_provider as provider, count(*) as n from verification_attempts where created_at >= ${from} and vpn_provider is not null group by 1 order by 2 desc, 1 limit 8`,
  );
  const alarms = await selectRows<{ day: string; n: number | string }>(
    executor,
    sql`select ${day('raised_at')} as day, count(*) as n from raid_alarms where raised_at >= ${from} group by 1 order by 1`,
  );
  return {
    periodDays,
    from: start.toISOString(),
    verificationsPerDay: byDay(verifications),
    altLinksPerDay: byDay(links),
    vpn: { attempts: Number(vpnTotals?.attempts ?? 0), vpnAttempts: Number(vpnTotals?.vpn ?? 0), providers: providers.map((p) => ({ provider: p.provider, attempts: Number(p.n) })) },
    raidAlarmsPerDay: alarms.map((a) => ({ day: a.day, alarms: Number(a.n) })),
  };
}
