/** The statistics module, as the rest of the server uses it. */
export { readStatistics } from './statistics.repository';
export { STATISTICS_PERIODS } from './statistics.repository';
export type { StatisticsPeriod } from './statistics.repository';
export { createStatisticsService } from './statistics.service';
export type { StatisticsService } from './statistics.service';
