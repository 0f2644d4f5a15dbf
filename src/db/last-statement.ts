import type { Executor } from './client';
import { openTransaction } from './embedded-client';

/**
 * Runs a transaction's last statement (`run` makes exactly one, on `tx`, the transaction whose
 * function is running) so that COMMIT goes with it. On the embedded engine in its worker thread
 * (the product's default) that is one round trip between the threads fewer, and PGlite's one
 * connection is free as soon as the statement's answer is back, not a turn of the main thread
 * later; elsewhere (PostgreSQL, PGlite in this thread) the statement runs as any other and the
 * transaction commits when its function returns. Measured with pglite-transaction.ts (one change):
 * a one-insert transaction in the worker 860-1,170 -> 400 µs; P2 on PGlite (100k members, in
 * turns) server time per flow 14.9, 15.1, 18.4 -> 14.4, 14.3, 13.5 ms, 106-108 -> 115-118 flows/s.
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
  // the worker client's transaction, found through the async context (embedded-client.ts, `openTransaction`)
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
