import type { Executor } from './client';
import type { EmbeddedQueries } from './embedded-client';

/**
 * The client under a Drizzle database or transaction: Drizzle keeps it in its session, private in
 * its types (drizzle-orm 0.45, `PgliteSession.client`, `NodePgSession.client`). The worker's
 * transactions are the only clients with `endWithNext`; anything else reads as none.
 */
function clientOf(executor: Executor): Pick<EmbeddedQueries, 'endWithNext'> | undefined {
  const { session } = executor._ as unknown as { session?: { client?: Pick<EmbeddedQueries, 'endWithNext'> } };
  return session?.client;
}

/**
 * Runs a transaction's last statement (`run` makes exactly one) so that COMMIT goes with it. On
 * the embedded engine in its worker thread (the product's default) that is one round trip between
 * the threads fewer, and PGlite's one connection is free as soon as the statement's answer is
 * back, not a turn of the main thread later; elsewhere (PostgreSQL, PGlite in this thread) the
 * statement runs as any other and the transaction commits when its function returns.
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
export async function asLastStatement<T>(tx: Executor, run: () => Promise<T>, committing?: () => void): Promise<T> {
  const client = clientOf(tx);
  if (client?.endWithNext) {
    client.endWithNext();
    committing?.();
    return run();
  }
  const result = await run();
  committing?.();
  return result;
}
