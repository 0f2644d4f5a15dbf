import fs from 'node:fs';
import path from 'node:path';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { drizzleOnEmbedded, type Database } from './client';

/** Serialises migrations, and the re-creation of functions, across processes starting together on one PostgreSQL server. */
const MIGRATION_LOCK_ID = 72_611_001;

/** A folder shipped beside the code: from source (src/db) or from the build (dist/src/db), which keeps no SQL. */
function sqlFolder(name: string, holds: (dir: string) => boolean): string {
  const candidates = [path.join(__dirname, name), path.resolve(__dirname, '../../../src/db', name)];
  const found = candidates.find((dir) => fs.existsSync(dir) && holds(dir));
  if (!found) throw new Error(`SQL ${name} not found (looked in ${candidates.join(', ')})`);
  return found;
}

/** The SQL migrations folder, from source (src/db) or from the build (dist/src/db). */
export function migrationsFolder(): string {
  return sqlFolder('migrations', (dir) => fs.existsSync(path.join(dir, 'meta', '_journal.json')));
}

/** The database functions folder (src/db/functions: one `create or replace function` per file). */
export function functionsFolder(): string {
  return sqlFolder('functions', (dir) => fs.readdirSync(dir).some((file) => file.endsWith('.sql')));
}

interface Journal {
  entries: { idx: number; tag: string }[];
}

export function expectedMigrationCount(): number {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as Journal;
  return journal.entries.length;
}

export interface SqlFunctionFile {
  /** the function's name, which is also the file's name */
  name: string;
  file: string;
  text: string;
}

/**
 * The function files in name order (the order they are applied in). Each file holds one
 * `create or replace function <name>(…)` named after the file, so the function a file
 * defines can be found by its name, and two files never fight over one function.
 */
export function readFunctionFiles(folder = functionsFolder()): SqlFunctionFile[] {
  return fs
    .readdirSync(folder)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.sql'.length);
      const text = fs.readFileSync(path.join(folder, file), 'utf8');
      const defined = [...text.matchAll(/\bcreate\s+or\s+replace\s+function\s+([a-z_][a-z0-9_]*)\s*\(/gi)].map((m) => m[1]!.toLowerCase());
      if (defined.length !== 1 || defined[0] !== name) {
        throw new Error(
          `${path.join(folder, file)} must define exactly one function, named ${name}, with create or replace (found: ${defined.join(', ') || 'none'})`,
        );
      }
      return { name, file, text };
    });
}

function describeFailure(file: SqlFunctionFile, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(`applying the database function file ${file.file} failed: ${reason}`, { cause: error });
}

/**
 * Re-creates every function from its file, in one transaction: all of them or none.
 * `create or replace` keeps a function's identity (triggers and callers keep working), so
 * this is safe on every start; changing a function's arguments or result type needs a
 * migration that drops the old one first. On PostgreSQL the caller holds the migration
 * lock: two sessions replacing one function at once can fail ("tuple concurrently updated").
 */
async function applyFunctionFiles(database: Database, files: readonly SqlFunctionFile[], client?: pg.PoolClient): Promise<void> {
  if (database.pglite) {
    await database.pglite.transaction(async (tx) => {
      for (const file of files) await tx.exec(file.text).catch((error: unknown) => Promise.reject(describeFailure(file, error)));
    });
    return;
  }
  const session = lockHolder(client);
  await session.query('begin');
  try {
    for (const file of files) await session.query(file.text).catch((error: unknown) => Promise.reject(describeFailure(file, error)));
    await session.query('commit');
  } catch (error) {
    await session.query('rollback');
    throw error;
  }
}

function lockHolder(client: pg.PoolClient | undefined): pg.PoolClient {
  if (!client) throw new Error('PostgreSQL migrations run on the session holding the migration lock');
  return client;
}

/** Runs `work` on one session holding the migration lock (PostgreSQL), or at once (PGlite: one process owns it). */
async function withMigrationLock(database: Database, work: (client?: pg.PoolClient) => Promise<void>): Promise<void> {
  if (database.pglite) return work();
  if (!database.pool) throw new Error('database has neither a pool nor an embedded engine');
  const client = await database.pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await work(client);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    client.release();
  }
}

/**
 * Brings the database up to date: the drizzle migrations not yet applied, then every
 * function file re-created (src/db/functions is the functions' source: migrations that
 * created them before are history). Several processes may run this at once.
 */
export async function runMigrations(database: Database): Promise<void> {
  const folder = migrationsFolder();
  const files = readFunctionFiles();
  await withMigrationLock(database, async (client) => {
    if (database.pglite) await migratePglite(drizzleOnEmbedded(database.pglite), { migrationsFolder: folder });
    else await migratePg(drizzlePg({ client: lockHolder(client) }), { migrationsFolder: folder });
    await applyFunctionFiles(database, files, client);
  });
}

/** Re-creates the functions of `files` (tests: a folder of their own), under the migration lock. */
export async function applyFunctions(database: Database, files: readonly SqlFunctionFile[]): Promise<void> {
  await withMigrationLock(database, (client) => applyFunctionFiles(database, files, client));
}

/** How many migrations the database has applied (0 before the first run). */
export async function appliedMigrationCount(database: Database): Promise<number> {
  const exists = await database.query<{ present: boolean }>(`select to_regclass('drizzle.__drizzle_migrations') is not null as present`);
  if (!exists.rows[0]?.present) return 0;
  const result = await database.query<{ count: string | number }>('select count(*) as count from drizzle.__drizzle_migrations');
  return Number(result.rows[0]?.count ?? 0);
}
