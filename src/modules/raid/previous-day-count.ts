/** How long a count of the day before the raid window is used again before it is counted anew. */
export const PREVIOUS_DAY_REUSE_MS = 60_000;

/**
 * The raid rule's usual pace is the number of verifications in the 24 hours before the
 * window (`previousDay`, see raid-rules.ts). Counting it reads every attempt of a day: on a
 * server of a million verifications a month, 34,000 index entries, which took longer than
 * the rest of the sign-in's statement together (bench P2 at 1M members). The count hardly
 * moves from one verification to the next: a minute later the day has lost a minute of
 * verifications at its start and gained a minute at its end, out of a day's. So each
 * process counts it at most once a minute and uses that count for the verifications of
 * the minute after (the rule compares the window with a 144th of it, 10-minute windows).
 *
 * A count is used only for a `now` from its own up to PREVIOUS_DAY_REUSE_MS later: a clock
 * that went back (a test's, or a corrected system clock) counts again.
 */
export function createPreviousDayCount(reuseMs = PREVIOUS_DAY_REUSE_MS) {
  let last: { at: number; count: number } | undefined;
  return {
    /** The count to use at `now`, when one made less than `reuseMs` before is kept; undefined: count it. */
    reusable(now: Date): number | undefined {
      if (!last) return undefined;
      const age = now.getTime() - last.at;
      return age >= 0 && age < reuseMs ? last.count : undefined;
    },
    /** Keeps the count a statement made at `now` (only a count the database made: never one it was given). */
    counted(now: Date, count: number): void {
      last = { at: now.getTime(), count };
    },
  };
}
