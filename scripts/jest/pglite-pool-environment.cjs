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
// of every table deleted and the sequences restarted (triggers off, as resetDatabase does between tests), the
// prepared statements, plans and temporary tables dropped, and session settings set back. It is kept only when
// its tables and functions are then exactly the template's, and the planner's size figures too (ANALYZE or
// VACUUM leave figures that deleting rows does not undo); otherwise (a dropped or altered table, an analysed
// one, a failed reset) it is closed for real and the next file opens a fresh one.
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

/** @type {{ db: any, template: string, schemas: string[], shape: string, sizeFigures: string, reset: string, settings: Map<string, string> }[]} */
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

/**
 * The planner's size figures of every table and index (reltuples, relpages). Deleting rows leaves them as they
 * were, and only ANALYZE, VACUUM or an index build moves them; the members list's total estimates from them.
 */
async function sizeFiguresOf(db) {
  const { rows } = await db.query(`
    select string_agg(c.relname || ':' || c.reltuples::text || ':' || c.relpages::text, ',' order by c.relname) as figures
      from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'`);
  return rows[0]?.figures ?? '';
}

async function shapeOf(db) {
  const { rows } = await db.query(SHAPE_SQL);
  return rows.map((r) => r.shape ?? '').join('\n');
}

/** One script that empties every table of the public schema and restarts its sequences. */
async function resetScriptOf(db) {
  const tables = await db.query(
    `select quote_ident(schemaname) || '.' || quote_ident(tablename) as name from pg_tables where schemaname = 'public' order by tablename`,
  );
  const sequences = await db.query(
    `select quote_ident(schemaname) || '.' || quote_ident(sequencename) as name from pg_sequences where schemaname = 'public'`,
  );
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
  return {
    db,
    template,
    schemas,
    shape: await shapeOf(db),
    sizeFigures: await sizeFiguresOf(db),
    reset: await resetScriptOf(db),
    settings: await settingsOf(db),
  };
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
    if ((await sizeFiguresOf(entry.db)) !== entry.sizeFigures) throw new Error('table statistics changed (ANALYZE or VACUUM)');
    await entry.db.exec(entry.reset);
    // not DISCARD ALL: it would also reset settings PGlite sets at start (search_path), which restoreSettings keeps
    await entry.db.exec('deallocate all; discard plans; discard temp; discard sequences');
    await restoreSettings(entry);
    idle.push(entry);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    closedBecause[reason] = (closedBecause[reason] ?? 0) + 1;
    await entry.db.close().catch(() => undefined);
  }
}

const pool = {
  /**
   * A migrated database as the template file holds it (an idle one emptied, or a new one), and the function
   * that hands it back. The caller wraps the PGlite instance (src/test-support/database.ts); a test file runs in
   * its own realm, so its values reach this realm's PGlite only through statements that serialise them by tag
   * (src/db/pglite-prepared.ts), never by `instanceof`.
   */
  async acquire(template) {
    const index = idle.findIndex((e) => e.template === template);
    let entry;
    if (index >= 0) {
      reused++;
      entry = idle.splice(index, 1)[0];
    } else {
      entry = await open(template);
    }
    let released = false;
    return {
      pglite: entry.db,
      release: async () => {
        if (released) return;
        released = true;
        await takeBack(entry);
      },
    };
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
