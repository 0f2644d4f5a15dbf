import { sql, type SQL } from 'drizzle-orm';

/**
 * Values written into a statement's text rather than sent as parameters.
 *
 * Use them only where the value decides the plan and the same value comes back: the member
 * search. On PGlite every statement text is prepared once and kept (pglite-prepared.ts); a
 * read with parameters is planned again at every run for its values, and a search's plan is
 * expensive to make: the planner estimates how many usernames match `ilike '%word%'` by trying
 * the pattern on every entry of the column's 1,000-entry histogram (statistics target 1000,
 * migration 0009, so that a rare word is not taken for a common one). That is 1.5–2 ms of a
 * 5–9 ms search at 1M members. A statement whose values are all in its text has no parameters,
 * so PostgreSQL plans it once, for exactly those values, and runs that plan until the table's
 * statistics change (an ANALYZE, the hourly job's, makes it plan again: "PostgreSQL will force
 * re-analysis and re-planning of the statement ... whenever ... their planner statistics have
 * been updated", the PREPARE page of its manual). A search repeated (the list refreshed, paged
 * back, several staff on one search during a raid) skips the planning; a new word costs what it
 * did. Such statements have a budget of their own among the kept ones (the 64 most recently used,
 * pglite-prepared.ts), so a stream of new words neither pushes the product's own statements out
 * nor grows the worker's memory without bound. On the PostgreSQL server statements are not kept,
 * so nothing changes there.
 *
 * The text is never pasted in raw: these functions write a literal PostgreSQL reads back as
 * exactly the value, whatever it holds (quotes, backslashes, `$1`, comment marks), and refuse
 * what cannot be one.
 */

/** `value` as an escape string literal: E'…' with each backslash and quote doubled (read the same whatever standard_conforming_strings says). */
export function textLiteral(value: string): SQL {
  // PostgreSQL text cannot hold NUL, and in a statement's text it would end the statement early
  if (value.includes('\u0000')) throw new TypeError('A text literal cannot contain the NUL character');
  return sql.raw(`E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`);
}

/** A whole number as a literal (a LIMIT): refuses anything but a safe integer, so nothing else can reach the text. */
export function integerLiteral(value: number): SQL {
  if (!Number.isSafeInteger(value)) throw new TypeError(`Not a whole number: ${String(value)}`);
  return sql.raw(String(value));
}

/**
 * A LIMIT written into the text. Drizzle's `.limit()` is typed for a number or a placeholder;
 * it renders any SQL chunk it is given as written (`limit ${limit}` in its dialect), which is
 * what this relies on.
 */
export function literalLimit(value: number): number {
  return integerLiteral(value) as unknown as number;
}
