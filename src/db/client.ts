/**
 * The data layer: Drizzle over PGlite (embedded, in its worker thread) or PostgreSQL.
 *
 * Its shape (docs/data-layer.md): the code speaks to Drizzle through its public API only. A
 * statement that runs over and over is built once per executor with `sql.placeholder` and
 * `.prepare(name)` (prepared-per-executor.ts), which node-postgres sends as a named prepared
 * statement. Nothing replaces Drizzle's renderer or reads its private fields. Below Drizzle, the
 * embedded engine's client (embedded-client.ts) keeps each statement text prepared
 * (pglite-prepared.ts) and sends BEGIN/COMMIT as one message each (pglite-transaction.ts),
 * because PGlite has no prepared statements of its own; each of those files gives its figure.
 */
import path from 'node:path';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import pg from 'pg';
import { acquireDataDirLock } from './data-dir-lock';
import { inProcessClient, type EmbeddedClient } from './embedded-client';
import { openWorkerClient } from './pglite-worker-client';
import { schema } from './schema';
import { takeTurn } from './request-turn';
import { isStaffLane, STAFF_LANE_CONNECTIONS } from './staff-lane';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** What repositories take: the database or a transaction on it. */
export type Executor = Db | Tx;

export type EngineKind = 'pglite' | 'postgres';

export interface SqlResult<T> {
  rows: T[];
}

export interface Database {
  kind: EngineKind;
  db: Db;
  /** Raw parameterised SQL ($1, $2 …) for the few places Drizzle's builder is not enough. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<SqlResult<T>>;
  /** Runs several statements without parameters (scripts, maintenance). */
  exec(text: string): Promise<void>;
  /** The adapter pg-boss uses when it shares this connection (PGlite). */
  executeSql(text: string, values?: unknown[]): Promise<SqlResult<unknown>>;
  pool?: pg.Pool;
  /** the embedded engine: in its worker thread (the product) or in this thread (tests, benches) */
  pglite?: EmbeddedClient;
  close(): Promise<void>;
}

export class DatabaseOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseOpenError';
  }
}

// The contrib entry point's types are published as ESM only; its CommonJS build is real.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };
const pgliteExtensions = { pg_trgm };

/** Drizzle's PGlite driver over an embedded client: it calls `query` and `transaction` only, which both kinds of client serve. */
export function drizzleOnEmbedded<S extends Record<string, unknown>>(
  client: EmbeddedClient,
  options: { schema?: S; casing?: 'snake_case' } = {},
) {
  // the driver is typed for PGlite itself; an EmbeddedClient answers every call it makes
  return drizzlePglite({ client: client as unknown as PGlite, ...options });
}

function wrapPglite(pglite: EmbeddedClient, release: () => void): Database {
  const db = drizzleOnEmbedded(pglite, { schema, casing: 'snake_case' }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    pglite,
    query: async <T>(text: string, params: unknown[] = []) => (await pglite.query<T>(text, params)) as SqlResult<T>,
    exec: async (text) => {
      await pglite.exec(text);
    },
    executeSql: async (text, values) => {
      if (values && values.length > 0) return pglite.query(text, values);
      const results = await pglite.exec(text);
      return results.at(-1) ?? { rows: [] };
    },
    close: async () => {
      try {
        if (!pglite.closed) await pglite.close();
      } finally {
        release();
      }
    },
  };
}

export interface PgliteOptions {
  /**
   * The database worker ended on its own (a crash): nothing can be stored any more, so the
   * default reports it on stderr and exits 1, for the supervisor to restart the product.
   */
  onWorkerCrash?: (error: Error) => void;
  /** reliability drills (DRILL_HOOKS): SIGUSR2 makes the worker crash */
  crashOnSigusr2?: boolean;
}

function exitOnWorkerCrash(error: Error): void {
  process.stderr.write(`gatekeeper: ${error.message}; exiting\n`);
  process.exit(1);
}

/**
 * Opens (creating if needed) the embedded database in `<dataDir>/db`, holding the folder's
 * lock. The database runs in a worker thread, so statements execute on the second core
 * while the main thread serves requests.
 */
export async function openPglite(dataDir: string, options: PgliteOptions = {}): Promise<Database> {
  const folder = path.join(dataDir, 'db');
  const release = acquireDataDirLock(dataDir);
  try {
    const client = await openWorkerClient(folder, {
      crashOnSigusr2: options.crashOnSigusr2,
      onCrash: (error) => {
        // the worker held the files: they are free, and the lock with them
        release();
        (options.onWorkerCrash ?? exitOnWorkerCrash)(error);
      },
    });
    return wrapPglite(client, release);
  } catch (error) {
    release();
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatabaseOpenError(
      `Cannot open the embedded database in ${folder}: ${reason}. If the folder is damaged, restore it from a backup or move it aside to start empty.`,
      { cause: error },
    );
  }
}

/** A Database over an embedded client opened elsewhere (the tests' pool of migrated in-memory databases). */
export function embeddedDatabase(client: EmbeddedClient): Database {
  return wrapPglite(client, () => undefined);
}

/** An in-memory PGlite, optionally restored from a dump (tests, benchmarks). */
export async function openMemoryPglite(loadDataDir?: Blob): Promise<Database> {
  const pglite = await PGlite.create({ extensions: pgliteExtensions, ...(loadDataDir ? { loadDataDir } : {}) });
  return embeddedDatabase(await inProcessClient(pglite));
}

function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'the configured server';
  }
}

/**
 * A server that answers but refuses us (unknown role, wrong password, no such database)
 * will refuse every retry too: the fix for each, or null for a server not answering yet,
 * which is worth waiting for (a database container still starting).
 */
function permanentRefusal(error: unknown): string | null {
  switch ((error as { code?: string }).code) {
    case '28000':
    case '28P01':
      return 'fix the user name or password in DATABASE_URL';
    case '3D000':
      return 'create that database (createdb) or name an existing one in DATABASE_URL';
    default:
      return null;
  }
}

export interface PostgresOptions {
  url: string;
  poolMax?: number;
  /** keep retrying a server that does not answer for this long, with backoff */
  connectTimeoutSeconds?: number;
  onRetry?: (attempt: number, delayMs: number, error: Error) => void;
}

/**
 * How long a statement waits for one of the pool's connections (or for a new one to open). A crowd
 * (hundreds of visitors at once) queues here, first come first served, rather than failing after a
 * few seconds; past it the request answers 503 with Retry-After (db-errors.ts), never a 500.
 */
export const POOL_CHECKOUT_WAIT_MS = 15_000;

/** The handlers every pool of ours needs. */
function guardPool(pool: pg.Pool): pg.Pool {
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor may a checked-out one: a transaction's client between two statements (or waiting
  // for a lock) gets the server's FATAL (restart, pg_terminate_backend) as an 'error' event
  // that nobody listens to, which killed the process. Its next query fails instead, the
  // request answers an error, and the pool drops the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * The product's pool, which hands work started in the staff lane (staff-lane.ts) to a small pool of
 * its own: a crowd that holds every connection of the main pool, with more visitors queued for one,
 * does not hold up staff signing in. It stays a pg.Pool, so Drizzle takes a transaction's client
 * from it (`connect`) and runs other statements on it (`query`) as on any pool.
 */
class LanedPool extends pg.Pool {
  constructor(
    config: pg.PoolConfig,
    readonly staff: pg.Pool,
  ) {
    super(config);
  }

  /** pg-pool's waiting list (3.x): checkouts waiting for a connection, served from the front */
  private get waiting(): unknown[] {
    return (this as unknown as { _pendingQueue: unknown[] })._pendingQueue;
  }
  /** waiting checkouts of requests already under way (request-turn.ts) */
  private readonly underWay = new WeakSet<object>();

  // pg.Pool's overloads (promise or callback) pass through unchanged to whichever pool serves the lane
  override connect(...args: unknown[]): never {
    if (isStaffLane()) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the overloads' arguments, as given
      return (this.staff.connect as (...a: any[]) => any).apply(this.staff, args) as never;
    }
    const ahead = takeTurn();
    const before = this.waiting.length;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the overloads' arguments, as given
    const result = (super.connect as (...a: any[]) => any).apply(this, args) as never;
    // the checkout had to wait (it was added at the back, synchronously): a request under way goes
    // behind the other requests under way, ahead of the new ones
    if (ahead && this.waiting.length > before) {
      const item = this.waiting.pop() as object;
      const at = this.waiting.findIndex((other) => !this.underWay.has(other as object));
      this.waiting.splice(at === -1 ? this.waiting.length : at, 0, item);
      this.underWay.add(item);
    }
    return result;
  }

  override query(...args: unknown[]): never {
    const target = isStaffLane() ? this.staff : null;
    // pg.Pool's query has many overloads; the arguments go on as given
    type AnyQuery = (...a: unknown[]) => unknown;
    return (target ? (target.query as AnyQuery).apply(target, args) : (super.query as AnyQuery).apply(this, args)) as never;
  }

  override async end(): Promise<void> {
    await Promise.all([super.end(), this.staff.end()]);
  }
}

export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const config = { connectionString: options.url, connectionTimeoutMillis: POOL_CHECKOUT_WAIT_MS };
  const staffPool = guardPool(new pg.Pool({ ...config, max: STAFF_LANE_CONNECTIONS }));
  const pool = guardPool(new LanedPool({ ...config, max: options.poolMax ?? 10 }, staffPool));
  const deadline = Date.now() + (options.connectTimeoutSeconds ?? 6) * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query('select 1');
      break;
    } catch (error) {
      const delay = Math.min(250 * 2 ** (attempt - 1), 2000);
      const refusal = permanentRefusal(error);
      if (refusal || Date.now() + delay > deadline) {
        await pool.end().catch(() => undefined);
        const reason = error instanceof Error ? error.message : String(error);
        const tries = refusal ? '' : ` after ${attempt} attempts`;
        throw new DatabaseOpenError(
          `Cannot reach the PostgreSQL server at ${describeUrl(options.url)} (DATABASE_URL)${tries}: ${reason}${refusal ? `; ${refusal}` : ''}`,
          { cause: error },
        );
      }
      options.onRetry?.(attempt, delay, error as Error);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  const db = drizzlePg({ client: pool, schema, casing: 'snake_case' }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    pool,
    query: async <T>(text: string, params: unknown[] = []) => (await pool.query(text, params)) as unknown as SqlResult<T>,
    exec: async (text) => {
      await pool.query(text);
    },
    executeSql: async (text, values) => pool.query(text, values as unknown[]),
    close: async () => {
      await pool.end();
    },
  };
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  poolMax?: number;
  connectTimeoutSeconds?: number;
  onRetry?: PostgresOptions['onRetry'];
  onWorkerCrash?: PgliteOptions['onWorkerCrash'];
  crashOnSigusr2?: boolean;
}

export function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    return openPostgres({
      url: options.databaseUrl,
      poolMax: options.poolMax,
      connectTimeoutSeconds: options.connectTimeoutSeconds,
      onRetry: options.onRetry,
    });
  }
  return openPglite(options.dataDir, { onWorkerCrash: options.onWorkerCrash, crashOnSigusr2: options.crashOnSigusr2 });
}

/** Runs raw SQL on a database or transaction and returns its rows (both drivers answer `{rows}`). */
export async function selectRows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown as SqlResult<T>;
  return result.rows;
}
