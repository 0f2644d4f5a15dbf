import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appliedMigrationCount, applyFunctions, expectedMigrationCount, readFunctionFiles, runMigrations } from './migrate';
import { describeEngines } from '../test-support/database';

/** A folder of function files for one test, removed afterwards. */
function functionFolder(files: Record<string, string>): { folder: string; remove: () => void } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-functions-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(folder, name), text);
  return { folder, remove: () => fs.rmSync(folder, { recursive: true, force: true }) };
}

const probeFunction = (name: string, result: string) =>
  `-- a probe\nCREATE OR REPLACE FUNCTION ${name}() RETURNS text AS $$\nBEGIN\n  RETURN '${result}';\nEND;\n$$ LANGUAGE plpgsql;\n`;

describe('function files', () => {
  it('each define exactly the function they are named after', () => {
    const files = readFunctionFiles();
    expect(files.map((f) => f.name)).toEqual(
      expect.arrayContaining(['audit_append', 'audit_log_refuse_change', 'find_alt_candidates', 'recount_alt_counters', 'save_alt_links']),
    );
    const named = functionFolder({ 'gk_one.sql': probeFunction('gk_other', 'x') });
    const twice = functionFolder({ 'gk_one.sql': probeFunction('gk_one', 'x') + probeFunction('gk_two', 'y') });
    try {
      expect(() => readFunctionFiles(named.folder)).toThrow(/must define exactly one function, named gk_one.*found: gk_other/);
      expect(() => readFunctionFiles(twice.folder)).toThrow(/found: gk_one, gk_two/);
    } finally {
      named.remove();
      twice.remove();
    }
  });
});

describeEngines('migrations', (getDatabase, engine) => {
  it('are all applied, and re-running them is a no-op', async () => {
    const database = getDatabase();
    expect(await appliedMigrationCount(database)).toBe(expectedMigrationCount());
    await runMigrations(database);
    expect(await appliedMigrationCount(database)).toBe(expectedMigrationCount());
  });

  it('enable pg_trgm and build the trigram index on usernames', async () => {
    const { rows } = await getDatabase().query<{ indexdef: string }>(
      `select indexdef from pg_indexes where indexname = 'members_username_trgm_idx'`,
    );
    expect(rows[0]?.indexdef).toContain('gin_trgm_ops');
    const sim = await getDatabase().query<{ s: number }>(`select similarity('gatekeeper', 'gatekeepr') as s`);
    expect(Number(sim.rows[0]?.s)).toBeGreaterThan(0.5);
  });

  it('keep the audit log append-only', async () => {
    const database = getDatabase();
    await database.query(`insert into audit_log (actor_type, action, seal_seq, prev_hash, hash) values ('system', 'test', 1, '', 'x')`);
    await expect(database.query(`update audit_log set action = 'changed'`)).rejects.toThrow(/append-only/);
    await expect(database.query(`delete from audit_log`)).rejects.toThrow(/append-only/);
  });

  it("leave exactly the functions of src/db/functions in the database, each with its file's body", async () => {
    const { rows } = await getDatabase().query<{ name: string; body: string }>(
      `select p.proname as name, p.prosrc as body from pg_proc p join pg_language l on l.oid = p.prolang
       where p.pronamespace = 'public'::regnamespace and l.lanname in ('plpgsql', 'sql') order by p.proname`,
    );
    const files = readFunctionFiles();
    expect(rows.map((r) => r.name)).toEqual(files.map((f) => f.name));
    for (const row of rows) expect(files.find((f) => f.name === row.name)!.text).toContain(row.body);
  });

  it('re-create a changed function file on the next run, and apply all files or none', async () => {
    const database = getDatabase();
    const call = async (name: string) => (await database.query<{ result: string }>(`select ${name}() as result`)).rows[0]?.result;
    const first = functionFolder({
      'gk_probe_a.sql': probeFunction('gk_probe_a', 'one'),
      'gk_probe_b.sql': probeFunction('gk_probe_b', 'one'),
    });
    const changed = functionFolder({
      'gk_probe_a.sql': probeFunction('gk_probe_a', 'two'),
      'gk_probe_b.sql': probeFunction('gk_probe_b', 'two'),
    });
    const broken = functionFolder({
      'gk_probe_a.sql': probeFunction('gk_probe_a', 'three'),
      'gk_probe_b.sql': probeFunction('gk_probe_b', 'three').replace('RETURN', 'RETRN'),
    });
    try {
      await applyFunctions(database, readFunctionFiles(first.folder));
      expect([await call('gk_probe_a'), await call('gk_probe_b')]).toEqual(['one', 'one']);
      await applyFunctions(database, readFunctionFiles(first.folder));
      await applyFunctions(database, readFunctionFiles(changed.folder));
      expect([await call('gk_probe_a'), await call('gk_probe_b')]).toEqual(['two', 'two']);
      await expect(applyFunctions(database, readFunctionFiles(broken.folder))).rejects.toThrow(/gk_probe_b\.sql failed/);
      // the good file before the broken one was rolled back with it
      expect([await call('gk_probe_a'), await call('gk_probe_b')]).toEqual(['two', 'two']);
    } finally {
      first.remove();
      changed.remove();
      broken.remove();
      await database.exec('drop function if exists gk_probe_a(); drop function if exists gk_probe_b();');
    }
  });

  if (engine === 'postgres') {
    it('can run in several processes starting at once (the migration lock serialises them)', async () => {
      const database = getDatabase();
      await Promise.all(Array.from({ length: 4 }, () => runMigrations(database)));
      expect(await appliedMigrationCount(database)).toBe(expectedMigrationCount());
    });
  }
});
