import useSWR from 'swr';
import { fetcher } from '@/lib/api';
import {
  type Statistics,
  type StatisticsPeriod,
  APPEAL_COUNT_KEYS,
  STATISTICS_PERIODS,
  type AppealCountKey,
  type DayCount,
  type VerificationCountKey,
} from '@shared/statistics';

export { APPEAL_COUNT_KEYS, STATISTICS_PERIODS, type AppealCountKey, type DayCount, type StatisticsPeriod, type VerificationCountKey };

/** GET /api/admin/statistics?days=N */
export type StatisticsResponse = Statistics;

export function useStatistics(days: StatisticsPeriod) {
  return useSWR<StatisticsResponse>(`/api/admin/statistics?days=${days}`, (path: string) => fetcher<StatisticsResponse>(path));
}
