import { isDatabaseUnavailable, sqlState } from './db-errors';

export interface SqlStateRetry {
  /** the SQLSTATEs worth another try (anything else is thrown at once) */
  states: ReadonlySet<string>;
  attempts?: number;
  /** attempt n waits baseDelayMs × n plus up to 2 × baseDelayMs at random */
  baseDelayMs: number;
  onRetry?: (attempt: number, code: string) => void;
}

/**
 * The one retry loop: runs `work` again while `retryable` says so of its error, up to `attempts`
 * runs in all, attempt n waiting baseDelayMs × n plus up to jitter × baseDelayMs at random.
 */
async function retryWhile<T>(
  work: () => Promise<T>,
  retryable: (error: unknown) => boolean,
  options: { attempts: number; baseDelayMs: number; jitter: number; onRetry?: (attempt: number, error: unknown) => void },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!retryable(error) || attempt >= options.attempts) throw error;
      options.onRetry?.(attempt, error);
      await new Promise((resolve) =>
        setTimeout(resolve, options.baseDelayMs * attempt + Math.random() * options.jitter * options.baseDelayMs),
      );
    }
  }
}

/** Runs `work` again, after a growing random pause, while it fails with one of `states`. */
export function retryOnSqlState<T>(work: () => Promise<T>, options: SqlStateRetry): Promise<T> {
  const { onRetry } = options;
  return retryWhile(work, (error) => options.states.has(sqlState(error) ?? ''), {
    attempts: options.attempts ?? 4,
    baseDelayMs: options.baseDelayMs,
    jitter: 2,
    onRetry: onRetry && ((attempt, error) => onRetry(attempt, sqlState(error)!)),
  });
}

const RETRYABLE = new Set(['40P01', '40001']); // deadlock detected, serialization failure

/**
 * Runs a transaction again when PostgreSQL aborted it for a deadlock or a serialization
 * failure: two verifications touching the same members can meet in opposite order.
 */
export function retryOnConflict<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  return retryOnSqlState(work, { states: RETRYABLE, attempts, baseDelayMs: 10 });
}

export interface UncommittedRetry<T = unknown> {
  attempts?: number;
  /** attempt n waits baseDelayMs × n plus up to baseDelayMs at random */
  baseDelayMs?: number;
  onRetry?: (attempt: number, error: unknown) => void;
  /**
   * Asked, on a fresh connection, when the connection was lost once the commit had started: whether the
   * commit was kept after all. Kept: the value the run gave `committing` is the result; not kept: the
   * work runs again. Without it, or when the database cannot be asked either, the error is thrown as it is.
   */
  wasKept?: (value: T) => Promise<boolean>;
}

/** How often a transaction whose connection was lost is run in all, and the base of its waits (attempt n waits base × n plus up to base). */
export const UNCOMMITTED_RETRY = { attempts: 4, baseDelayMs: 250 } as const;

/**
 * Runs a transaction again when its connection to the database was lost (a PostgreSQL restart,
 * connections terminated by an administrator, the network) before its commit started. `work` calls
 * `committing(value)` where the commit starts, with the value it will return (`asLastStatement` in
 * last-statement.ts calls it at that point): from there on a lost connection leaves it unknown whether
 * the transaction committed. Before that point nothing it did can have been kept, and running it again
 * on a fresh connection loses nothing. After it, `wasKept` decides: kept, that value is returned; not
 * kept, the work runs again; without its answer the error is thrown rather than risk doing the work
 * twice. A server that is reachable again has settled the commit one way or the other: PostgreSQL
 * holds off a termination until a commit it has begun is done, and replays a flushed commit after a
 * crash. The waits (0.25–0.5, 0.5–0.75 and 0.75–1 s by default) give the pool time to drop its dead
 * connections and a server time to come back.
 */
export function retryWhileUncommitted<T>(
  work: (committing: (value: T) => void) => Promise<T>,
  options: UncommittedRetry<T> = {},
): Promise<T> {
  const baseDelayMs = options.baseDelayMs ?? UNCOMMITTED_RETRY.baseDelayMs;
  // the run under way, once its commit has started: the value it gave
  let atCommit: { value: T } | undefined;
  const run = async () => {
    atCommit = undefined;
    try {
      return await work((value) => {
        atCommit = { value };
      });
    } catch (error) {
      // set by `committing`, a callback, which TypeScript's narrowing does not follow
      const reached = atCommit as { value: T } | undefined;
      const { wasKept } = options;
      if (!reached || !wasKept || !isDatabaseUnavailable(error)) throw error;
      const kept = await askWasKept(() => wasKept(reached.value), baseDelayMs);
      if (kept === true) return reached.value;
      // not kept: nothing was, and the work may run again
      if (kept === false) atCommit = undefined;
      throw error;
    }
  };
  return retryWhile(run, (error) => !atCommit && isDatabaseUnavailable(error), {
    attempts: options.attempts ?? UNCOMMITTED_RETRY.attempts,
    baseDelayMs,
    jitter: 1,
    onRetry: options.onRetry,
  });
}

/** `wasKept`, asked again while the database is away; 'unknown' when it cannot be asked. */
async function askWasKept(wasKept: () => Promise<boolean>, baseDelayMs: number): Promise<boolean | 'unknown'> {
  try {
    return await retryWhile(wasKept, isDatabaseUnavailable, { attempts: UNCOMMITTED_RETRY.attempts, baseDelayMs, jitter: 1 });
  } catch {
    return 'unknown';
  }
}

/**
 * Runs `work` again while it fails because the connection to the database was lost, wherever that
 * happened, even after the work may have been kept: only for work whose second run is harmless
 * when the first was kept (a read; a single-use token's use, whose second run finds it used and
 * refuses; the rules' confirmation, whose second run is what the visitor's second click does).
 * Run it on the database, not inside a transaction, whose connection is the one lost.
 */
export function retryOnLostConnection<T>(work: () => Promise<T>, options: Omit<UncommittedRetry, 'wasKept'> = {}): Promise<T> {
  return retryWhileUncommitted(() => work(), options);
}
