import useSWR from 'swr';
import { fetcher } from '@/lib/api';

export const STATISTICS_PERIODS = [7, 30, 90] as const;
export type StatisticsPeriod = (typeof STATISTICS_PERIODS)[number];

/** One UTC day's counts per category (missing categories count zero). */
export interface DayCount<K extends string> {
  day: string;
  counts: Partial<Record<K, number>>;
}

/** GET /api/admin/statistics?days=N */
export interface StatisticsResponse {
  periodDays: StatisticsPeriod;
  from: string;
  verificationsPerDay: DayCount<'verified' | 'limited_access' | 'denied'>[];
  altLinksPerDay: DayCount<'certain' | 'medium' | 'possible'>[];
  vpn: { attempts: number; vpnAttempts: number; providers: { provider: string; attempts: number }[] };
  raidAlarmsPerDay: { day: string; alarms: number }[];
}

export function useStatistics(days: StatisticsPeriod) {
  return useSWR<StatisticsResponse>(`/api/admin/statistics?days=${days}`, (path: string) => fetcher<StatisticsResponse>(path));
}
