import type { InvalidRequests } from './invalid-requests';

/**
 * The thresholds of the budget gate, as shares of Discord's invalid request limit (10,000
 * per 10 minutes), written once here:
 * - below SLOW_FROM (25%) calls go as they come;
 * - from SLOW_FROM to PAUSE_FROM (50%) every call waits its turn, the turns spaced more and
 *   more (linearly from 0 to the widest spacing);
 * - from PAUSE_FROM, non-essential calls (log messages) wait until the count drops under
 *   it, and the others go at the widest spacing: the window divided by a quarter of the
 *   limit (240 ms for Discord's numbers). At that pace, even if every call failed, ten
 *   minutes add at most a quarter of the limit, so the count cannot pass 75%: the ban at
 *   100% stays out of reach whatever Discord answers.
 */
export const BUDGET_THRESHOLDS = { slowFrom: 0.25, pauseFrom: 0.5, widestSpacingShare: 0.25 } as const;

export type BudgetState = 'open' | 'slowed' | 'paused';

/**
 * One gate that every Discord call of the process passes (the bot's REST client, the
 * visitors' OAuth calls): `pass(essential)` resolves when the call may go.
 */
export function createRequestBudgetGate(
  invalid: InvalidRequests,
  options: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
) {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const widestSpacingMs = invalid.windowMs / (invalid.limit * BUDGET_THRESHOLDS.widestSpacingShare);
  /** the earliest time the next spaced call may go */
  let nextTurnAt = 0;

  function state(usage = invalid.usage()): BudgetState {
    if (usage >= BUDGET_THRESHOLDS.pauseFrom) return 'paused';
    if (usage >= BUDGET_THRESHOLDS.slowFrom) return 'slowed';
    return 'open';
  }

  /** The time between two calls at this usage (0 below SLOW_FROM). */
  function spacingMs(usage: number): number {
    if (usage < BUDGET_THRESHOLDS.slowFrom) return 0;
    const share = Math.min(1, (usage - BUDGET_THRESHOLDS.slowFrom) / (BUDGET_THRESHOLDS.pauseFrom - BUDGET_THRESHOLDS.slowFrom));
    return Math.max(1, Math.round(widestSpacingMs * share));
  }

  return {
    state,
    spacingMs,
    widestSpacingMs,
    async pass(essential: boolean): Promise<void> {
      let usage = invalid.usage();
      // non-essential work waits out the pause, checking again at the pace old answers leave the window
      while (!essential && usage >= BUDGET_THRESHOLDS.pauseFrom) {
        await sleep(Math.max(widestSpacingMs, invalid.windowMs / 600));
        usage = invalid.usage();
      }
      const spacing = spacingMs(usage);
      if (spacing === 0) return;
      const at = now();
      const turn = Math.max(at, nextTurnAt);
      nextTurnAt = turn + spacing;
      if (turn > at) await sleep(turn - at);
    },
  };
}

export type RequestBudgetGate = ReturnType<typeof createRequestBudgetGate>;
