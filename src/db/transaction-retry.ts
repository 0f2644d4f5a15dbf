import { sqlState } from './db-errors';

export interface SqlStateRetry {
  /** the SQLSTATEs worth another try (anything else is thrown at once) */
  states: ReadonlySet<string>;
  attempts?: number;
  /** attempt n waits baseDelayMs × n plus up to 2 × baseDelayMs at random */
  baseDelayMs: number;
  onRetry?: (attempt: number, code: string) => void;
}

/** Runs `work` again, after a growing random pause, while it fails with one of `states`. */
export async function retryOnSqlState<T>(work: () => Promise<T>, options: SqlStateRetry): Promise<T> {
  const attempts = options.attempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = sqlState(error);
      if (!code || !options.states.has(code) || attempt >= attempts) throw error;
      options.onRetry?.(attempt, code);
      await new Promise((resolve) => setTimeout(resolve, options.baseDelayMs * attempt + Math.random() * 2 * options.baseDelayMs));
    }
  }
}

const RETRYABLE = new Set(['40P01', '40001']); // deadlock detected, serialization failure

/**
 * Runs a transaction again when PostgreSQL aborted it for a deadlock or a serialization
 * failure: two verifications touching the same members can meet in opposite order.
 */
export function retryOnConflict<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  return retryOnSqlState(work, { states: RETRYABLE, attempts, baseDelayMs: 10 });
}
