import { sql, type SQLWrapper } from 'drizzle-orm';
import { selectRows, type Database } from '../db/client';

/** A statement's parameter as the SQL literal EXECUTE is given. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return `'${(value instanceof Date ? value.toISOString() : String(value)).replace(/'/g, "''")}'`;
}

/**
 * The plan a write runs with on the embedded engine: pglite-prepared.ts keeps one generic plan for
 * every write, planned with its parameters unknown. The statement is prepared under
 * `force_generic_plan`, then run by EXPLAIN ANALYZE with its own parameters (it changes rows, like
 * the statement itself would). One session: a transaction holds one pool client on PostgreSQL.
 */
export async function explainGenericPlan(database: Database, query: SQLWrapper & { toSQL(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql: text, params } = query.toSQL();
  return database.db.transaction(async (tx) => {
    await tx.execute(sql.raw('set local plan_cache_mode = force_generic_plan'));
    await tx.execute(sql.raw(`prepare generic_plan_under_test as ${text}`));
    const lines = await selectRows<{ 'QUERY PLAN': string }>(tx, sql.raw(`explain (analyze, costs off, timing off) execute generic_plan_under_test(${params.map(literal).join(', ')})`));
    await tx.execute(sql.raw('deallocate generic_plan_under_test'));
    return lines.map((line) => line['QUERY PLAN']).join('\n');
  });
}

/** The largest `rows=` of a plan's steps: how many rows its busiest step read or returned. */
export function mostRowsInPlan(plan: string): number {
  return Math.max(...[...plan.matchAll(/rows=(\d+)/g)].map((match) => Number(match[1])));
}
