import type { DayCount } from '../../api/statistics';
import { DAY_MS } from '@shared/durations';

/** Every UTC day of the period (YYYY-MM-DD), from its first day on: days without counts still get a bar of zero. */
export function periodDays(from: string, periodDays: number): string[] {
  const start = Date.parse(from.length === 10 ? `${from}T00:00:00Z` : from);
  if (Number.isNaN(start)) return [];
  return Array.from({ length: periodDays }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
}

/** One series' values for `days`, read from the per-day counts (a missing day or key counts zero). */
export function seriesValues<K extends string>(days: string[], perDay: DayCount<K>[], key: K): number[] {
  const byDay = new Map(perDay.map((d) => [d.day, d.counts]));
  return days.map((day) => byDay.get(day)?.[key] ?? 0);
}

/** '2026-06-04' → '06-04' under the axis (the year is the same on nearly every bar). */
export const shortDay = (day: string) => day.slice(5);
