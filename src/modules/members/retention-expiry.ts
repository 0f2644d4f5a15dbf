import { DAY_MS } from '../../shared/durations';

/** When data last touched at `at` falls behind the cut-off (the hourly purge deletes it within the hour after). */
export function retentionExpiry(at: Date, retentionDays: number): Date {
  return new Date(at.getTime() + retentionDays * DAY_MS);
}
