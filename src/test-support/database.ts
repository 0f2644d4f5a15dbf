import crypto from 'node:crypto';
import fs from 'node:fs';
import { embeddedDatabase, openMemoryPglite, openPostgres, type Database, type EngineKind } from '../db/client';
import type { PGlite } from '@electric-sql/pglite';
import { inProcessClient, type EmbeddedClient } from '../db/embedded-client';
import { testEngines } from './engine-pass';
import { withDatabase } from './global-setup';
import { adminUrl, pgliteTemplateFile, postgresTemplateName, TEST_DATABASE_PREFIX, testRunId } from './template';

/** The integration projects' pool of migrated PGlite databases (scripts/jest/pglite-pool-environment.cjs). */
interface PglitePool {
  acquire(templateFile: string): Promise<{ pglite: PGlite; release(): Promise<void> }>;
}

function pglitePool(): PglitePool | undefined {
  return (globalThis as { __gatekeeperPglitePool?: PglitePool }).__gatekeeperPglitePool;
}

/** A client that hands its database back to the pool on close, and answers as a closed PGlite after that. */
function handedBackOnClose(client: EmbeddedClient, release: () => Promise<void>): EmbeddedClient {
  let released = false;
  const live = () => {
    if (released) throw new Error('PGlite is closed');
    return client;
  };
  return {
    query: async (text, params, options) => live().query(text, params, options),
    exec: async (text) => live().exec(text),
    transaction: async (work) => live().transaction(work),
    dumpDataDir: async (compression) => live().dumpDataDir(compression),
    get closed() {
      return released;
    },
    close: async () => {
      if (released) return;
      released = true;
      await release();
    },
  };
}

/**
 * A fresh, migrated database of the given engine: on PGlite an emptied one from the worker's pool when
 * the test environment has one (its close() hands it back), else restored from the run's template
 * (~1.2 CPU-seconds); on PostgreSQL a database created from the template database.
 */
export async function createTestDatabase(engine: EngineKind = 'pglite'): Promise<Database> {
  if (engine === 'pglite') {
    const pool = pglitePool();
    if (pool) {
      const { pglite, release } = await pool.acquire(pgliteTemplateFile());
      return embeddedDatabase(handedBackOnClose(await inProcessClient(pglite), release));
    }
    const dump = fs.readFileSync(pgliteTemplateFile());
    return openMemoryPglite(new Blob([dump]));
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const name = `${TEST_DATABASE_PREFIX}${testRunId()}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = await openPostgres({ url: adminUrl(url), connectTimeoutSeconds: 5, poolMax: 1 });
  try {
    await admin.exec(`create database ${name} template ${postgresTemplateName()}`);
  } finally {
    await admin.close();
  }
  const database = await openPostgres({ url: withDatabase(url, name), connectTimeoutSeconds: 5, poolMax: 5 });
  const close = database.close;
  database.close = async () => {
    await close();
    const cleanup = await openPostgres({ url: adminUrl(url), connectTimeoutSeconds: 5, poolMax: 1 });
    await cleanup.exec(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await cleanup.close();
  };
  return database;
}

/** The body of a describe block for one engine, with a fresh database for the block. */
function describeWithDatabase(name: string, engine: EngineKind, body: (getDatabase: () => Database, engine: EngineKind) => void): void {
  describe(`${name} [${engine}]`, () => {
    let database: Database | undefined;
    beforeAll(async () => {
      database = await createTestDatabase(engine);
    });
    body(() => {
      if (!database) throw new Error('test database not ready');
      return database;
    }, engine);
    // declared after the body's hooks so it runs after them (servers stop before the pool ends)
    afterAll(async () => {
      await database?.close();
    });
  });
}

/**
 * Runs a describe block once per engine of this pass (engine-pass.ts) with a fresh database for the block:
 * `describeEngines('members repository', (getDb) => { it(…, async () => { const { db } = getDb(); … }) })`.
 */
export function describeEngines(name: string, body: (getDatabase: () => Database, engine: EngineKind) => void): void {
  for (const engine of testEngines()) describeWithDatabase(name, engine, body);
}

/**
 * `describeEngines` on PGlite only, for a file whose subject does not depend on the database engine
 * (what Discord is sent, in what order; the SQL it runs is the same on both engines and is tested on both
 * elsewhere). Such a file is left out of the `integration-postgres` project (scripts/jest/engine-projects.cjs).
 */
export function describeOnPgliteOnly(name: string, body: (getDatabase: () => Database, engine: EngineKind) => void): void {
  describeWithDatabase(name, 'pglite', body);
}

const DATA_TABLES = [
  'members',
  'verification_attempts',
  'alt_links',
  'admin_notes',
  'staff',
  'login_throttle',
  'audit_log',
  'vpn_cache',
  'discord_outbox',
  'shared_networks',
  'one_time_tokens',
  'settings',
  'raid_alarms',
  'statistics_days',
  'statistics_hours',
  'audit_chain_checkpoint',
  'appeals',
  'sign_in_callbacks',
];
const resetScripts = new WeakMap<Database, string>();

/**
 * Empties every data table and restarts their ids at 1. Rows are deleted rather than truncated: a
 * TRUNCATE of seventeen tables gives each table and index a new file, which cost 0.1–0.7 s per
 * reset, and many files reset before every test. Triggers (the foreign keys' and the audit log's
 * append-only one) are off for the transaction (`session_replication_role = replica`), so the
 * order does not matter and the audit log empties too.
 */
export async function resetDatabase(database: Database): Promise<void> {
  let script = resetScripts.get(database);
  if (!script) {
    const { rows } = await database.query<{ name: string }>(
      `select quote_ident(schemaname) || '.' || quote_ident(sequencename) as name from pg_sequences where schemaname = 'public'`,
    );
    script = [
      'begin',
      'set local session_replication_role = replica',
      ...DATA_TABLES.map((table) => `delete from ${table}`),
      ...(rows.length > 0 ? [`select ${rows.map((r) => `setval('${r.name}', 1, false)`).join(', ')}`] : []),
      'commit',
    ].join(';\n');
    resetScripts.set(database, script);
  }
  await database.exec(script);
}
