// The integration projects' test environment: jest's node environment plus a pool of migrated in-memory
// PGlite databases that outlives the test file. Jest loads an environment module once per worker, so what
// this module holds is kept from one file to the next, while each file still gets a fresh global scope.
//
// Why: opening PGlite from the run's template costs ~1.2 CPU-seconds (the WebAssembly instance, PostgreSQL's
// start-up, the untar of the template), paid by every file; a database handed back is emptied instead, in a
// few milliseconds. src/test-support/database.ts takes its PGlite databases from here when the pool exists.
//
// A database is handed back by the test's `close()` and made as the template left it: an open transaction
// rolled back, the schemas the test created dropped (pg-boss's `pgboss` when the product's jobs ran), the rows
// of every table deleted and the sequences restarted (triggers off, as resetDatabase does between tests),
// plans, temporary tables and session settings set back. It is kept only when its tables and functions are
// then exactly the template's; otherwise (a dropped or altered table, a failed reset) it is closed for real
// and the next file opens a fresh one.
//
// GK_POOL_STATS=<file> appends, after each test file, the worker's counts: databases opened, reused, idle,
// and why any were closed instead of kept.
const { TestEnvironment } = require('jest-environment-node');
const fs = require('node:fs');
const path = require('node:path');

/** @type {{ PGlite: any, pg_trgm: any } | undefined} loaded on first use: the web project never needs it */
let engine;
function pglite() {
  if (!engine) {
    engine = {
      PGlite: require('@electric-sql/pglite').PGlite,
      pg_trgm: require('@electric-sql/pglite/contrib/pg_trgm').pg_trgm,
    };
  }
  return engine;
}

/** At most this many idle databases per worker (a file rarely holds more than one at a time; each is ~150 MB). */
const MAX_IDLE = 2;

/** @type {{ db: any, template: string, schemas: string[], shape: string, reset: string, settings: Map<string, string> }[]} */
const idle = [];
let opened = 0;
let reused = 0;

/** What must not change for a database to be reused: schemas, relations, columns, constraints, triggers, functions. */
const SHAPE_SQL = `
  select string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text, ',' order by n.nspname, c.relname) as shape
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg_temp%' and n.nspname not like 'pg_toast_temp%'
  union all
  select string_agg(n.nspname || '.' || p.proname || '/' || p.pronargs, ',' order by n.nspname, p.proname, p.pronargs)
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname not in ('pg_catalog', 'information_schema')
  union all
  select string_agg(c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull::text, ',' order by c.relname, a.attnum)
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
  union all
  select string_agg(c.relname || '.' || k.conname || ':' || pg_get_constraintdef(k.oid), ',' order by c.relname, k.conname)
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public'
  union all
  select string_agg(c.relname || '.' || t.tgname || ':' || t.tgenabled::text, ',' order by c.relname, t.tgname)
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = 'public'
  union all
  select string_agg(nspname, ',' order by nspname) from pg_namespace`;

async function shapeOf(db) {
  const { rows } = await db.query(SHAPE_SQL);
  return rows.map((r) => r.shape ?? '').join('\n');
}

/** One script that empties every table of the public schema and restarts its sequences. */
async function resetScriptOf(db) {
  const tables = await db.query(`select quote_ident(schemaname) || '.' || quote_ident(tablename) as name from pg_tables where schemaname = 'public' order by tablename`);
  const sequences = await db.query(`select quote_ident(schemaname) || '.' || quote_ident(sequencename) as name from pg_sequences where schemaname = 'public'`);
  return [
    'begin',
    'set local session_replication_role = replica',
    ...tables.rows.map((r) => `delete from ${r.name}`),
    ...(sequences.rows.length > 0 ? [`select ${sequences.rows.map((r) => `setval('${r.name}', 1, false)`).join(', ')}`] : []),
    'commit',
  ].join(';\n');
}

/** The session's settings (PGlite sets some at start, e.g. search_path, so DISCARD ALL / RESET ALL would lose them). */
async function settingsOf(db) {
  const { rows } = await db.query(`select name, setting from pg_settings where context in ('user', 'superuser')`);
  return new Map(rows.map((r) => [r.name, r.setting]));
}

/**
 * Puts back every session setting a test changed (SET without LOCAL lasts the session). A setting that was not
 * there at open (an extension's, registered when its library first loads, such as pg_trgm's) goes back to its
 * default; a custom variable a test made up (`set my.flag = …`) cannot be removed, so that database is closed.
 */
async function restoreSettings(entry) {
  const { rows } = await entry.db.query(`select name, setting, boot_val from pg_settings where context in ('user', 'superuser')`);
  for (const { name, setting, boot_val: boot } of rows) {
    if (!entry.settings.has(name)) {
      if (setting === boot) continue;
      if (boot === null) throw new Error(`custom setting ${name}`); // a placeholder variable cannot be removed
      await entry.db.query('select set_config($1, $2, false)', [name, boot]);
    } else if (entry.settings.get(name) !== setting) {
      await entry.db.query('select set_config($1, $2, false)', [name, entry.settings.get(name)]);
    }
  }
}

async function open(template) {
  const { PGlite, pg_trgm } = pglite();
  const db = await PGlite.create({ extensions: { pg_trgm }, loadDataDir: new Blob([fs.readFileSync(template)]) });
  opened++;
  const schemas = (await db.query('select nspname from pg_namespace')).rows.map((r) => r.nspname);
  return { db, template, schemas, shape: await shapeOf(db), reset: await resetScriptOf(db), settings: await settingsOf(db) };
}

/** Schemas a test created (pg-boss makes `pgboss` when the product's jobs start): dropped on hand-back. */
async function dropNewSchemas(entry) {
  const { rows } = await entry.db.query(
    `select quote_ident(nspname) as name from pg_namespace
      where nspname <> all($1::text[]) and nspname not like 'pg_temp%' and nspname not like 'pg_toast_temp%'`,
    [entry.schemas],
  );
  for (const { name } of rows) await entry.db.exec(`drop schema ${name} cascade`);
}

/** Why databases were closed instead of kept (printed with GK_POOL_STATS). */
const closedBecause = {};

/** Empties a handed-back database and keeps it, or closes it when it cannot be made as new. */
async function takeBack(entry) {
  try {
    if (entry.db.closed) return;
    if (idle.length >= MAX_IDLE) throw new Error('pool full');
    await entry.db.exec('rollback'); // only a warning when no transaction is open
    await dropNewSchemas(entry);
    if ((await shapeOf(entry.db)) !== entry.shape) throw new Error('tables or functions changed');
    await entry.db.exec(entry.reset);
    await entry.db.exec('discard plans; discard temp; discard sequences');
    await restoreSettings(entry);
    idle.push(entry);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    closedBecause[reason] = (closedBecause[reason] ?? 0) + 1;
    await entry.db.close().catch(() => undefined);
  }
}

/**
 * Parameters as this realm's PGlite accepts them. A test file runs in its own realm (a vm context), so its
 * Date and Uint8Array are not the ones PGlite was loaded with here, and PGlite's serialiser tests them with
 * instanceof: a date or a byte array becomes this realm's copy of the same value.
 */
function ownRealm(value) {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date || value instanceof Uint8Array) return value;
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date(value.getTime());
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (Array.isArray(value)) return value.map(ownRealm);
  return value;
}

const ownRealmParams = (params) => (params ? params.map(ownRealm) : params);

/** A transaction handle whose queries take the test realm's parameters too. */
function transactionIn(tx) {
  return {
    query: (text, params, options) => tx.query(text, ownRealmParams(params), options),
    exec: (text) => tx.exec(text),
    rollback: () => tx.rollback(),
    get closed() {
      return tx.closed;
    },
  };
}

/**
 * An EmbeddedClient (src/db/embedded-client.ts) over a pooled database: every call works until close(),
 * which hands the database back; after that it answers as a closed PGlite does.
 */
function lease(entry) {
  let released = false;
  const live = () => {
    if (released) throw new Error('PGlite is closed');
    return entry.db;
  };
  return {
    query: async (text, params, options) => live().query(text, ownRealmParams(params), options),
    exec: async (text) => live().exec(text),
    transaction: async (work) => live().transaction((tx) => work(transactionIn(tx))),
    dumpDataDir: async (compression) => {
      const db = live();
      return db._runExclusiveTransaction(() => db._runExclusiveQuery(() => db.dumpDataDir(compression)));
    },
    get closed() {
      return released;
    },
    close: async () => {
      if (released) return;
      released = true;
      await takeBack(entry);
    },
  };
}

const pool = {
  /** A migrated database as the template file holds it: an idle one emptied, or a new one. */
  async acquire(template) {
    const index = idle.findIndex((e) => e.template === template);
    if (index >= 0) {
      reused++;
      return lease(idle.splice(index, 1)[0]);
    }
    return lease(await open(template));
  },
  stats: () => ({ opened, reused, idle: idle.length, closedBecause: { ...closedBecause } }),
};

class PglitePoolEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.global.__gatekeeperPglitePool = pool;
  }

  async teardown() {
    const statsFile = process.env.GK_POOL_STATS;
    if (statsFile) fs.appendFileSync(statsFile, `${process.pid} ${path.basename(this.testPath)} ${JSON.stringify(pool.stats())}\n`);
    await super.teardown();
  }
}

module.exports = PglitePoolEnvironment;
