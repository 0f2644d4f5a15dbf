/** The statistics page's periods and the shape of GET /api/admin/statistics?days=N, shared by the server and the dashboard. */

export const STATISTICS_PERIODS = [7, 30, 90] as const;
export type StatisticsPeriod = (typeof STATISTICS_PERIODS)[number];

/** One UTC day's counts per category (missing categories count zero). */
export interface DayCount<K extends string> {
  /** YYYY-MM-DD (UTC) */
  day: string;
  counts: Partial<Record<K, number>>;
}

/**
 * Verifications per day, each counted under one key: 'denied_alt' when the member's standing
 * was certain alt after it, else 'pending' when an admission rule held them for review, else
 * its outcome ('verified', 'limited_access'; 'denied': refused on the website by the VPN policy).
 */
export const VERIFICATION_COUNT_KEYS = ['verified', 'limited_access', 'denied', 'denied_alt', 'pending'] as const;
export type VerificationCountKey = (typeof VERIFICATION_COUNT_KEYS)[number];

/** Appeals per day: 'submitted' by the day it was filed, 'approved' / 'rejected' by the day staff decided it. */
export const APPEAL_COUNT_KEYS = ['submitted', 'approved', 'rejected'] as const;
export type AppealCountKey = (typeof APPEAL_COUNT_KEYS)[number];

export interface Statistics {
  periodDays: StatisticsPeriod;
  from: string;
  verificationsPerDay: DayCount<VerificationCountKey>[];
  /** links that count as alts (certain, medium) by the day they were made; possible links are evidence, not counted */
  altLinksPerDay: DayCount<'certain' | 'medium'>[];
  vpn: { attempts: number; vpnAttempts: number; providers: { provider: string; attempts: number }[] };
  appealsPerDay: DayCount<AppealCountKey>[];
  raidAlarmsPerDay: { day: string; alarms: number }[];
}
