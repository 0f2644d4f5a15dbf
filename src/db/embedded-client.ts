import { AsyncLocalStorage } from 'node:async_hooks';
import type { PGlite, QueryOptions, Results } from '@electric-sql/pglite';
import { PreparedStatements } from './pglite-prepared';
import { runTransaction } from './pglite-transaction';

/** The statements the code runs on the embedded engine, or on one of its transactions. */
export interface EmbeddedQueries {
  query<T = Record<string, unknown>>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
  /**
   * On a transaction of the worker's client only: the next `query` is the transaction's last, and
   * COMMIT goes with it (db/last-statement.ts)
   */
  endWithNext?(): void;
}

/**
 * The worker client's transaction the code runs in: its `transaction` runs each transaction's
 * function inside `openTransaction.run(tx, …)`. Drizzle keeps the client under its transaction
 * object in private fields only, so asLastStatement (last-statement.ts) finds the transaction
 * through the call's async context instead; under PostgreSQL, or PGlite in this thread, there is none.
 */
export const openTransaction = new AsyncLocalStorage<Pick<EmbeddedQueries, 'endWithNext'>>();

/**
 * What the code needs of the embedded engine (PGlite), wherever it runs: in this thread
 * (tests, benches) or in its own worker thread (the product). Drizzle's PGlite driver
 * calls only `query` and `transaction` (and `query` on the transaction it is handed).
 */
export interface EmbeddedClient extends EmbeddedQueries {
  /** Runs `work` in one transaction; other statements wait until it ends (one connection). */
  transaction<T>(work: (tx: EmbeddedQueries) => Promise<T>): Promise<T>;
  /** The data folder as a tarball, taken while no transaction is open and no statement runs. */
  dumpDataDir(compression: 'gzip' | 'none'): Promise<Blob>;
  readonly closed: boolean;
  close(): Promise<void>;
}

/** PGlite in this thread, as an EmbeddedClient. */
export async function inProcessClient(pglite: PGlite): Promise<EmbeddedClient> {
  const prepared = await PreparedStatements.open(pglite);
  return {
    query: (text, params, options) => prepared.query(text, params, options),
    exec: (text) => pglite.exec(text),
    transaction: (work) =>
      runTransaction(pglite, (tx) =>
        work({ query: (text, params, options) => prepared.queryIn(tx, text, params, options), exec: (text) => tx.exec(text) }),
      ),
    dumpDataDir: (compression) => exclusiveDump(pglite, compression),
    get closed() {
      return pglite.closed;
    },
    close: () => pglite.close(),
  };
}

/** A dump between two transactions: both of PGlite's locks held, so no write is half in it. */
export async function exclusiveDump(pglite: PGlite, compression: 'gzip' | 'none'): Promise<Blob> {
  return pglite._runExclusiveTransaction(() => pglite._runExclusiveQuery(() => pglite.dumpDataDir(compression)));
}
