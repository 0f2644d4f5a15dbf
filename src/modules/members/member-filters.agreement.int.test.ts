import { PgDialect } from 'drizzle-orm/pg-core';
import { MEMBER_FILTER_INDEXES, memberFilterSql } from '../../db/member-filters';
import { members } from '../../db/schema';
import { describeEngines } from '../../test-support/database';

/**
 * A narrow list filter is served by its partial index only while the index's predicate is
 * the filter's. The indexes come from migrations, the filters from member-filters.ts: the
 * database deparses both predicates (an index built with the filter's SQL, and the one
 * migrations built), so they compare equal exactly when PostgreSQL reads them the same.
 */
describeEngines('member filter indexes agree with the filter SQL', (getDatabase) => {
  const dialect = new PgDialect();
  const predicateOf = async (indexName: string) =>
    (
      await getDatabase().query<{ predicate: string | null }>(
        `select pg_get_expr(i.indpred, i.indrelid) as predicate from pg_index i where i.indexrelid = $1::regclass`,
        [indexName],
      )
    ).rows[0]?.predicate;

  it.each(Object.entries(MEMBER_FILTER_INDEXES))("%s: %s has the filter's predicate", async (filter, indexName) => {
    const database = getDatabase();
    const { sql: filterSql, params } = dialect.sqlToQuery(memberFilterSql(members)[filter as keyof typeof MEMBER_FILTER_INDEXES]);
    expect(params).toEqual([]);
    const migrated = await predicateOf(indexName);
    expect(migrated).toEqual(expect.any(String));
    await database.exec(`create index gk_probe_filter_idx on members (verified_at desc, id desc) where ${filterSql}`);
    try {
      expect(await predicateOf('gk_probe_filter_idx')).toBe(migrated);
    } finally {
      await database.exec('drop index gk_probe_filter_idx');
    }
  });

  it("holds no other partial index on members than the filters' and the held-members list's", async () => {
    const { rows } = await getDatabase().query<{ name: string }>(
      `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = 'members'::regclass and i.indpred is not null order by 1`,
    );
    // members_held_idx serves the lockdown's list of members held for review, not a list filter
    expect(rows.map((r) => r.name)).toEqual([...Object.values(MEMBER_FILTER_INDEXES), 'members_held_idx'].sort());
  });
});
