/** The statistics module, as the rest of the server uses it. */
export { readStatistics, STATISTICS_PERIODS, type StatisticsPeriod } from './statistics.repository';
export { createStatisticsService, type StatisticsService } from './statistics.service';
