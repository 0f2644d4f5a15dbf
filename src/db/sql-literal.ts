import { sql, type SQL } from 'drizzle-orm';

/**
 * Values written into a statement's text rather than sent as parameters: only where the value
 * decides the plan and the same value comes back, a member search's first page. On PGlite a read
 * with parameters is planned again at every run (pglite-prepared.ts), and a search's plan is dear:
 * the planner tries the pattern on all 1,000 histogram entries of username (migration 0009), 1.5–2
 * ms of a 5–9 ms search at 1M members. With every value in its text the statement has no
 * parameters, so PostgreSQL plans it once for that word and keeps the plan until the next ANALYZE.
 * P3 at 1M members on PGlite, four pairs in turns, medians of p95: search "rose42" 51.5 -> 43.7 ms,
 * Discord ID "40990" 43.1 -> 36.5 ms, the worst query ("foxwizard") 78.4 -> 67.9 ms (docs/data-layer.md).
 * PostgreSQL plans the unnamed statement at every run either way. Nothing is pasted in raw: these
 * write a literal PostgreSQL reads back as exactly the value, and refuse what cannot be one.
 */

/** `value` as an escape string literal: E'…' with each backslash and quote doubled. */
export function textLiteral(value: string): SQL {
  // PostgreSQL text cannot hold NUL, and in a statement's text it would end the statement early
  if (value.includes('\u0000')) throw new TypeError('A text literal cannot contain the NUL character');
  return sql.raw(`E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`);
}

/** A whole number written into the text as a LIMIT; anything else is refused, so nothing else can reach the text. */
export function literalLimit(value: number): number {
  if (!Number.isSafeInteger(value)) throw new TypeError(`Not a whole number: ${String(value)}`);
  // `.limit()` is typed for a number or a placeholder, and Drizzle renders any SQL chunk it is given as written
  return sql.raw(String(value)) as unknown as number;
}
