import { sql, type SQLWrapper } from 'drizzle-orm';
import { selectRows, type Database } from '../db/client';

/** A statement's parameter as the SQL literal EXECUTE is given. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return `'${(value instanceof Date ? value.toISOString() : String(value)).replace(/'/g, "''")}'`;
}

/**
 * The generic plan of `text` (parameters $1…$n): prepared under `force_generic_plan`, so planned
 * with its parameters unknown, as a function body's statement or a write on the embedded engine
 * (pglite-prepared.ts) runs, then explained executed with `args` (SQL literals, in order).
 * `types` are the parameters' types (inferred when absent); with `analyze` the statement runs
 * (it changes rows, as the statement itself would) and the plan says what each step read. One
 * session: a transaction holds one pool client on PostgreSQL; the prepared statement is dropped after.
 */
export async function explainPreparedGeneric(
  database: Database,
  text: string,
  args: string,
  options: { types?: string[]; analyze?: boolean } = {},
): Promise<string> {
  return database.db.transaction(async (tx) => {
    await tx.execute(sql.raw('set local plan_cache_mode = force_generic_plan'));
    await tx.execute(sql.raw(`prepare generic_plan_under_test${options.types ? `(${options.types.join(', ')})` : ''} as ${text}`));
    try {
      const explain = options.analyze ? 'explain (analyze, costs off, timing off)' : 'explain';
      const lines = await selectRows<{ 'QUERY PLAN': string }>(tx, sql.raw(`${explain} execute generic_plan_under_test(${args})`));
      return lines.map((line) => line['QUERY PLAN']).join('\n');
    } finally {
      await tx.execute(sql.raw('deallocate generic_plan_under_test'));
    }
  });
}

/** The plan a write runs with on the embedded engine (one generic plan), run with its own parameters. */
export async function explainGenericPlan(
  database: Database,
  query: SQLWrapper & { toSQL(): { sql: string; params: unknown[] } },
): Promise<string> {
  const { sql: text, params } = query.toSQL();
  return explainPreparedGeneric(database, text, params.map(literal).join(', '), { analyze: true });
}

/** The largest `rows=` of a plan's steps: how many rows its busiest step read or returned. */
export function mostRowsInPlan(plan: string): number {
  return Math.max(...[...plan.matchAll(/rows=(\d+)/g)].map((match) => Number(match[1])));
}
