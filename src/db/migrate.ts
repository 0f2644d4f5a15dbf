import fs from 'node:fs';
import path from 'node:path';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Database } from './client';

/** Serialises migrations across processes starting together on one PostgreSQL server. */
const MIGRATION_LOCK_ID = 72_611_001;

/** The SQL migrations folder, from source (src/db) or from the build (dist/src/db). */
export function migrationsFolder(): string {
  const candidates = [path.join(__dirname, 'migrations'), path.resolve(__dirname, '../../../src/db/migrations')];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'meta', '_journal.json')));
  if (!found) throw new Error(`SQL migrations not found (looked in ${candidates.join(', ')})`);
  return found;
}

interface Journal {
  entries: { idx: number; tag: string }[];
}

export function expectedMigrationCount(): number {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as Journal;
  return journal.entries.length;
}

export async function runMigrations(database: Database): Promise<void> {
  const folder = migrationsFolder();
  if (database.pglite) {
    await migratePglite(drizzlePglite({ client: database.pglite }), { migrationsFolder: folder });
    return;
  }
  if (!database.pool) throw new Error('database has neither a pool nor an embedded engine');
  const client = await database.pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await migratePg(drizzlePg({ client }), { migrationsFolder: folder });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    client.release();
  }
}

/** How many migrations the database has applied (0 before the first run). */
export async function appliedMigrationCount(database: Database): Promise<number> {
  const exists = await database.query<{ present: boolean }>(
    `select to_regclass('drizzle.__drizzle_migrations') is not null as present`,
  );
  if (!exists.rows[0]?.present) return 0;
  const result = await database.query<{ count: string | number }>('select count(*) as count from drizzle.__drizzle_migrations');
  return Number(result.rows[0]?.count ?? 0);
}
