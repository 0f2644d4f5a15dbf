import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPglite, openPostgres, type Database, type EngineKind } from '../../src/db/client';
import { runMigrations } from '../../src/db/migrate';

/**
 * A throwaway data store for one bench or drill run: a PGlite data folder in the temp
 * directory, or a database created on the PostgreSQL server named by BENCH_DATABASE_URL
 * (dropped at the end). `dataDir` also holds the product's generated secrets, so a
 * restarted child process finds the same keys (sealed outbox tokens stay readable).
 */
export interface BenchStore {
  kind: EngineKind;
  dataDir: string;
  /** set for PostgreSQL: what the product gets as DATABASE_URL */
  databaseUrl?: string;
  /** opens (and migrates) the store in this process; PGlite allows one opener at a time */
  open(): Promise<Database>;
  dispose(): Promise<void>;
}

export function adminUrlOf(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function createStore(kind: EngineKind, options: { serverUrl?: string; label?: string } = {}): Promise<BenchStore> {
  const dataDir = tempDir(`gk-${options.label ?? 'bench'}-${kind}-`);
  if (kind === 'pglite') {
    return {
      kind,
      dataDir,
      async open() {
        const database = await openPglite(dataDir);
        await runMigrations(database);
        return database;
      },
      async dispose() {
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const serverUrl = options.serverUrl;
  if (!serverUrl) throw new Error('a PostgreSQL store needs BENCH_DATABASE_URL');
  const name = `gk_${options.label ?? 'bench'}_${crypto.randomBytes(4).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = await openPostgres({ url: adminUrlOf(serverUrl), poolMax: 1, connectTimeoutSeconds: 5 });
  try {
    await admin.exec(`create database ${name}`);
  } finally {
    await admin.close();
  }
  const databaseUrl = withDatabase(serverUrl, name);
  return {
    kind,
    dataDir,
    databaseUrl,
    async open() {
      const database = await openPostgres({ url: databaseUrl, poolMax: 4, connectTimeoutSeconds: 10 });
      await runMigrations(database);
      return database;
    },
    async dispose() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      const cleanup = await openPostgres({ url: adminUrlOf(serverUrl), poolMax: 1, connectTimeoutSeconds: 5 });
      try {
        await cleanup.exec(`drop database if exists ${name} with (force)`);
      } finally {
        await cleanup.close();
      }
    },
  };
}

/** The engines to run: PGlite always, PostgreSQL when a server URL is given. */
export function enginesFor(serverUrl: string | undefined): EngineKind[] {
  return serverUrl ? ['pglite', 'postgres'] : ['pglite'];
}
