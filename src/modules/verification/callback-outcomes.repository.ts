import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, sql, type SQLWrapper } from 'drizzle-orm';
import type { Clock } from '../../clock';
import { selectRows, type Executor } from '../../db/client';
import { signInCallbacks } from '../../db/schema';
import { retryOnLostConnection } from '../../db/transaction-retry';
import { isDatabaseUnavailable } from '../../db/db-errors';
import type { Logger } from '../../logger';

/** Which sign-in a callback belongs to: the verification's, or the appeal page's identify-only one. */
export type CallbackKind = 'visitor' | 'appeal';

/**
 * What taking a callback found: it is this request's to finish (`claimed`), or another request
 * took the same callback before and has `done` it, is still `running`, or died with it (`lost`);
 * `other_code` is a used state sent with another code (a replay, never the same callback).
 * `unavailable`: the database failed (the state's use was not recorded either: a new sign-in can work).
 */
export type CallbackClaim<T> =
  /** `stateUsed`: the OAuth state's use, recorded in the same statement, was its first */
  | { kind: 'claimed'; stateUsed: boolean }
  | { kind: 'done'; outcome: T }
  | { kind: 'running' }
  | { kind: 'lost' }
  | { kind: 'other_code' }
  | { kind: 'unavailable' };

/** How often a request waiting for another process's sign-in reads its row again. */
const POLL_MS = 150;

/**
 * Where each sign-in callback ended, in the database (table sign_in_callbacks), so that the same
 * callback again lands on the same result on every web process, not only the one that took it:
 * with several processes (WEB_CONCURRENCY) a reload or a double click can reach another one, which
 * has no memory of the first. Keyed by the SHA-256 of the OAuth state; the code is kept only as part
 * of a hash of state and code. `runningMs`: how long the first request may take before a waiting one
 * gives it up as lost; `keepMs`: how long the row is kept (the retention job deletes it after).
 */
export function createCallbackOutcomes<T>(deps: {
  db: Executor;
  clock: Clock;
  logger: Logger;
  kind: CallbackKind;
  runningMs: number;
  keepMs: number;
  /** the stored outcome read back; null for a value this code never wrote */
  parse: (value: unknown) => T | null;
}) {
  type Row = { callbackHash: string; kind: string; outcome: unknown; runningUntil: Date };
  type Taken = Exclude<CallbackClaim<T>, { kind: 'claimed' } | { kind: 'unavailable' }>;
  const read = async (stateHash: string): Promise<Row | undefined> => {
    const [row] = await deps.db
      .select({
        callbackHash: signInCallbacks.callbackHash,
        kind: signInCallbacks.kind,
        outcome: signInCallbacks.outcome,
        runningUntil: signInCallbacks.runningUntil,
      })
      .from(signInCallbacks)
      .where(eq(signInCallbacks.stateHash, stateHash));
    return row;
  };
  /** What a row says to a request with this callback: done, running, lost, or another code. */
  const stateOf = (row: Row | undefined, callbackHash: string): Taken => {
    if (!row || row.kind !== deps.kind || row.callbackHash !== callbackHash) return { kind: 'other_code' };
    const outcome = row.outcome === null ? null : deps.parse(row.outcome);
    if (outcome !== null) return { kind: 'done', outcome };
    return row.runningUntil.getTime() > deps.clock.now().getTime() ? { kind: 'running' } : { kind: 'lost' };
  };

  const write = (executor: Executor, stateHash: string, outcome: T) =>
    executor
      .update(signInCallbacks)
      .set({ outcome })
      .where(and(eq(signInCallbacks.stateHash, stateHash), eq(signInCallbacks.kind, deps.kind)));

  return {
    /**
     * Takes the callback of this state for this request, or says what became of the request that took
     * it first. `stateUse` (VerificationService.openSignInState) uses up the OAuth state in the same
     * statement: one round trip before Discord is asked, which only the callback's first request makes.
     */
    async claim(stateHash: string, callbackHash: string, stateUse: (executor: Executor) => SQLWrapper): Promise<CallbackClaim<T>> {
      const now = deps.clock.now();
      const take = deps.db
        .insert(signInCallbacks)
        .values({
          stateHash,
          callbackHash,
          kind: deps.kind,
          runningUntil: new Date(now.getTime() + deps.runningMs),
          expiresAt: new Date(now.getTime() + deps.keepMs),
          createdAt: now,
        })
        .onConflictDoNothing({ target: signInCallbacks.stateHash })
        .returning({ stateHash: signInCallbacks.stateHash });
      try {
        // the row a request took before is read in the same statement (its snapshot: a row being
        // written by a request at this very moment is not seen, and reads as still running). A statement
        // whose connection was lost (a PostgreSQL restart) is sent again: it commits whole or not at all
        const [row] = await retryOnLostConnection(() =>
          selectRows<{
            used: number;
            took: number;
            callback_hash: string | null;
            kind: string | null;
            outcome: unknown;
            running_until: Date | string | null;
          }>(
            deps.db,
            sql`with used as ${stateUse(deps.db)}, took as ${take}
              select (select count(*) from used)::int as used, (select count(*) from took)::int as took, c.callback_hash, c.kind, c.outcome, c.running_until
              from (select 1) as one left join sign_in_callbacks c on c.state_hash = ${stateHash}`,
          ),
        );
        if (!row) throw new Error('the callback claim returned no row');
        if (row.took === 1) return { kind: 'claimed', stateUsed: row.used === 1 };
        if (row.callback_hash === null || row.kind === null || row.running_until === null) return { kind: 'running' };
        return stateOf(
          { callbackHash: row.callback_hash, kind: row.kind, outcome: row.outcome, runningUntil: new Date(row.running_until) },
          callbackHash,
        );
      } catch (error) {
        deps.logger.error({ err: error }, 'taking a sign-in callback failed');
        return { kind: 'unavailable' };
      }
    },

    /** The write storing where the claimed callback ended, to run inside another statement (the verification's last). */
    write: (executor: Executor, stateHash: string, outcome: T): SQLWrapper => write(executor, stateHash, outcome),

    /** Stores where the claimed callback ended; a failure is logged (this process still answers from memory). */
    async record(stateHash: string, outcome: T): Promise<void> {
      try {
        await write(deps.db, stateHash, outcome);
      } catch (error) {
        deps.logger.error({ err: error }, 'recording where a sign-in callback ended failed');
      }
    },

    /**
     * Waits up to `waitMs` for the callback another request took: its outcome, or still `running`
     * (also while the database cannot be read for a moment), or `lost` (its request died before it
     * ended), or `other_code`/`unavailable` as for `claim`.
     */
    async wait(stateHash: string, callbackHash: string, waitMs: number): Promise<Exclude<CallbackClaim<T>, { kind: 'claimed' }>> {
      const deadline = performance.now() + waitMs;
      for (;;) {
        let state: Exclude<CallbackClaim<T>, { kind: 'claimed' }>;
        try {
          state = stateOf(await read(stateHash), callbackHash);
        } catch (error) {
          // a database too busy to answer in time (a crowd) or away for a moment: the first request's
          // sign-in goes on meanwhile, so the visitor keeps waiting for it ('Finishing sign-in…' checks again)
          if (!isDatabaseUnavailable(error)) {
            deps.logger.error({ err: error }, 'reading where a sign-in callback ended failed');
            return { kind: 'unavailable' };
          }
          deps.logger.warn({ err: error }, 'where a sign-in callback ended could not be read yet; waiting on');
          return { kind: 'running' };
        }
        const left = deadline - performance.now();
        if (state.kind !== 'running' || left <= 0) return state;
        await sleep(Math.min(POLL_MS, left));
      }
    },
  };
}

export type CallbackOutcomes<T> = ReturnType<typeof createCallbackOutcomes<T>>;
