import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A hint that the next statement is its transaction's last: the embedded engine's worker then
 * commits right after running it and answers once committed, instead of waiting for the main
 * thread's COMMIT, a round trip later (pglite-worker-client.ts). PGlite has one connection: while a
 * transaction is open no other statement runs, so that round trip, spent waiting for the busy main
 * thread, held everyone else up (in P2 a verification's transaction held it 9.4 ms for 4.3 ms of
 * statements).
 *
 * Whoever gives the hint promises that nothing after that statement can fail: once it has run the
 * transaction is committed, and the caller's transaction callback must return. A statement run in
 * the transaction afterwards is refused. Engines that cannot use the hint (PostgreSQL, PGlite in
 * this thread) ignore it and commit when the callback returns, as without it.
 */
const hint = new AsyncLocalStorage<{ unused: boolean }>();

/** Runs `write`, whose one statement is the last of its transaction, with the hint (see the file's comment). */
export function asFinalStatement<T>(write: () => PromiseLike<T>): Promise<T> {
  // awaited inside the hint's context: Drizzle's queries are lazy, they run when awaited
  return hint.run({ unused: true }, async () => await write());
}

/** True once for the first statement run under the hint; false everywhere else. */
export function takeFinalStatementHint(): boolean {
  const store = hint.getStore();
  if (!store?.unused) return false;
  store.unused = false;
  return true;
}
