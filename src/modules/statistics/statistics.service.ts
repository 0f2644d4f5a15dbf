import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { readStatistics, type StatisticsPeriod } from './statistics.repository';

export type StatisticsService = ReturnType<typeof createStatisticsService>;

/** The dashboard's statistics: aggregates over the last 7, 30 or 90 days, ending now. */
export function createStatisticsService(deps: { database: Database; clock: Clock }) {
  return {
    read(days: StatisticsPeriod) {
      return readStatistics(deps.database.db, deps.clock.now(), days);
    },
  };
}
