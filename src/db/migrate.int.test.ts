import { appliedMigrationCount, expectedMigrationCount, runMigrations } from './migrate';
import { describeEngines } from '../test-support/database';

describeEngines('migrations', (getDatabase) => {
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
    await database.query(`insert into audit_log (actor_type, action, prev_hash, hash) values ('system', 'test', '', 'x')`);
    await expect(database.query(`update audit_log set action = 'changed'`)).rejects.toThrow(/append-only/);
    await expect(database.query(`delete from audit_log`)).rejects.toThrow(/append-only/);
  });
});
