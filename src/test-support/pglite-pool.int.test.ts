import { createTestDatabase } from './database';
import { describeOn } from './engine-pass';
import { buildMember } from './factories';

/** The integration environment's pool (scripts/jest/pglite-pool-environment.cjs), as this file sees it. */
interface PoolStats {
  opened: number;
  reused: number;
  idle: number;
  closedBecause: Record<string, number>;
}
const pool = (globalThis as { __gatekeeperPglitePool?: { stats(): PoolStats } }).__gatekeeperPglitePool;

// A database one file hands back must reach the next file as the template left it, or files would pass or fail
// by the order they happen to run in. These tests hand databases back and take them again in one file.
describeOn('pglite')('the PGlite pool of the integration tests', () => {
  it('exists in the integration projects', () => {
    expect(pool).toBeDefined();
  });

  it('hands the next test an emptied database: rows gone, ids restarted, created schemas dropped, settings put back', async () => {
    const first = await createTestDatabase('pglite');
    const member = await buildMember(first.db);
    await first.exec(`create schema scratch_jobs; create table scratch_jobs.queue (id int)`);
    await first.exec(`set statement_timeout = '12s'; set pg_trgm.similarity_threshold = 0.9`);
    const before = pool!.stats();
    await first.close();
    expect(pool!.stats().idle).toBe(before.idle + 1);

    const second = await createTestDatabase('pglite');
    try {
      expect(pool!.stats().reused).toBe(before.reused + 1);
      expect((await second.query('select count(*)::int as n from members')).rows).toEqual([{ n: 0 }]);
      expect((await second.query(`select count(*)::int as n from pg_namespace where nspname = 'scratch_jobs'`)).rows).toEqual([{ n: 0 }]);
      expect((await second.query(`select current_setting('statement_timeout') as s`)).rows).toEqual([{ s: '0' }]);
      expect((await second.query(`select current_setting('search_path') as s`)).rows).toEqual([{ s: 'public' }]);
      // a session setting of an extension loaded after the database opened is back at its default too
      expect((await second.query(`select current_setting('pg_trgm.similarity_threshold') as s`)).rows).toEqual([{ s: '0.3' }]);
      expect((await buildMember(second.db)).id).toBe(member.id);
    } finally {
      await second.close();
    }
  });

  it('closes a database whose tables changed instead of handing it on', async () => {
    const changed = await createTestDatabase('pglite');
    await changed.exec('alter table admin_notes add column mood text');
    const before = pool!.stats();
    await changed.close();
    expect(pool!.stats().idle).toBe(before.idle);
    expect(pool!.stats().closedBecause['tables or functions changed']).toBe((before.closedBecause['tables or functions changed'] ?? 0) + 1);

    const fresh = await createTestDatabase('pglite');
    try {
      const columns = await fresh.query(
        `select count(*)::int as n from information_schema.columns where table_name = 'admin_notes' and column_name = 'mood'`,
      );
      expect(columns.rows).toEqual([{ n: 0 }]);
    } finally {
      await fresh.close();
    }
  });

  it('closes a database whose tables were analysed: their size estimates would reach the next file', async () => {
    const analysed = await createTestDatabase('pglite');
    for (let i = 0; i < 20; i++) await buildMember(analysed.db);
    await analysed.exec('analyze members');
    const before = pool!.stats();
    await analysed.close();
    expect(pool!.stats().idle).toBe(before.idle);

    const fresh = await createTestDatabase('pglite');
    try {
      const { rows } = await fresh.query<{ reltuples: number }>(`select reltuples from pg_class where relname = 'members'`);
      expect(rows[0]!.reltuples).toBeLessThan(0); // never analysed, as in the template
    } finally {
      await fresh.close();
    }
  });

  it('rolls back a transaction the test left open, and answers as closed once handed back', async () => {
    const db = await createTestDatabase('pglite');
    await db.exec(`begin; insert into settings (key, value) values ('left', '1')`);
    await db.close();
    await expect(db.query('select 1')).rejects.toThrow();

    const next = await createTestDatabase('pglite');
    try {
      expect((await next.query('select count(*)::int as n from settings')).rows).toEqual([{ n: 0 }]);
      await next.exec(`insert into settings (key, value) values ('fresh', '1')`); // no transaction is left half open
    } finally {
      await next.close();
    }
  });

  it("takes this file's dates and byte arrays as parameters (a test file has its own Date and Uint8Array)", async () => {
    const db = await createTestDatabase('pglite');
    try {
      const at = new Date('2026-05-02T00:00:00Z');
      const { rows } = await db.query<{ at: Date; bytes: number }>('select $1::timestamptz as at, length($2::bytea) as bytes', [
        at,
        new Uint8Array([1, 2, 3]),
      ]);
      expect(rows[0]!.at.getTime()).toBe(at.getTime());
      expect(rows[0]!.bytes).toBe(3);
    } finally {
      await db.close();
    }
  });
});
