import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test-support/database';
import { buildAttempt, buildMember } from '../../test-support/factories';
import { upkeepEmbedded } from './embedded-upkeep';

/**
 * The hourly upkeep of the embedded engine, on PGlite (a PostgreSQL server has autovacuum):
 * every table is vacuumed and analyzed, in statements the visitors' statements can run between.
 */
describe('embedded upkeep (PGlite)', () => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase('pglite');
  });
  afterAll(async () => database.close());

  it('vacuums the database and gathers every table’s statistics, the wide columns’ included, one statement at a time', async () => {
    const { db } = database;
    for (let i = 0; i < 30; i++) {
      const member = await buildMember(db, { username: `upkeep${i}` });
      await buildAttempt(db, member.id, { fingerprintHash: `fp${i % 3}` });
    }
    await database.exec('delete from verification_attempts where fingerprint_hash = $$fp0$$');
    const statements: string[] = [];
    const exec = database.exec.bind(database);
    const spied: Database = { ...database, exec: async (text) => (statements.push(text), exec(text)) };

    await upkeepEmbedded(spied);

    // one statement per exec, VACUUM first and CHECKPOINT last, members' wide columns alone
    expect(statements[0]).toBe('VACUUM');
    expect(statements.at(-1)).toBe('CHECKPOINT');
    expect(statements.every((text) => !text.includes(';'))).toBe(true);
    expect(statements).toEqual(
      expect.arrayContaining(['ANALYZE members (discord_id)', 'ANALYZE members (username)', 'ANALYZE verification_attempts']),
    );
    const rest = statements.find((text) => text.startsWith('ANALYZE members (') && text.includes('status'));
    expect(rest).toBeDefined();
    expect(rest).not.toMatch(/\busername\b|\bdiscord_id\b/);
    // the catalogs too, as a database-wide ANALYZE does
    expect(statements).toContain('ANALYZE pg_class');

    // what it left: statistics for every column of members, dead rows of the attempts vacuumed away
    const { rows: columns } = await database.query<{ attname: string }>(
      `select attname from pg_stats where schemaname = 'public' and tablename = 'members' order by attname`,
    );
    expect(columns.map((c) => c.attname)).toEqual(expect.arrayContaining(['discord_id', 'username', 'status', 'created_at']));
    const { rows: tables } = await database.query<{
      relname: string;
      last_analyze: Date | null;
      last_vacuum: Date | null;
      n_dead_tup: number;
    }>(
      `select relname, last_analyze, last_vacuum, n_dead_tup::int from pg_stat_user_tables where schemaname = 'public' and relname in ('members', 'verification_attempts')`,
    );
    expect(tables).toHaveLength(2);
    for (const table of tables) {
      expect(table.last_analyze).not.toBeNull();
      expect(table.last_vacuum).not.toBeNull();
      expect(table.n_dead_tup).toBe(0);
    }
  });
});
