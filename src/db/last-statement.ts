import { AsyncLocalStorage } from 'node:async_hooks';
import type { Executor } from './client';
import type { EmbeddedQueries } from './embedded-client';

/**
 * The embedded client's transaction the code runs in: the worker's client (pglite-worker-client.ts)
 * runs each transaction's function inside `openTransaction.run(tx, …)`. Drizzle keeps the client
 * under its transaction object only in private fields, so the transaction is found through the
 * call's async context instead; under PostgreSQL, or PGlite in this thread, there is none.
 */
export const openTransaction = new AsyncLocalStorage<Pick<EmbeddedQueries, 'endWithNext'>>();

/**
 * Runs a transaction's last statement (`run` makes exactly one, on `tx`, the transaction whose
 * function is running) so that COMMIT goes with it. On the embedded engine in its worker thread
 * (the product's default) that is one round trip between the threads fewer, and PGlite's one
 * connection is free as soon as the statement's answer is back, not a turn of the main thread
 * later; elsewhere (PostgreSQL, PGlite in this thread) the statement runs as any other and the
 * transaction commits when its function returns.
 *
 * Nothing may run on the transaction after it, and nothing after it may fail: once its answer is
 * back the transaction has committed (or rolled back, if the statement failed, which then throws
 * as usual).
 *
 * `committing` is called where the commit starts: before the statement when COMMIT goes with it,
 * else once it has answered (the transaction commits next). Before that point a lost connection
 * cannot have kept anything; from it on, whether the transaction was kept is unknown
 * (`retryWhileUncommitted` in transaction-retry.ts).
 */
export async function asLastStatement<T>(_tx: Executor, run: () => Promise<T>, committing?: () => void): Promise<T> {
  const client = openTransaction.getStore();
  if (client?.endWithNext) {
    client.endWithNext();
    committing?.();
    return run();
  }
  const result = await run();
  committing?.();
  return result;
}
