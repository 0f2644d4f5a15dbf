import { sql, type SQL } from 'drizzle-orm';

/**
 * A transaction's last statement, marked as such: the embedded engine's worker then commits right
 * after running it and answers once committed, instead of waiting for the main thread's COMMIT, a
 * round trip later (pglite-worker-client.ts). PGlite has one connection: while a transaction is
 * open no other statement runs, so that round trip, spent waiting for the busy main thread, held
 * everyone else up.
 *
 * The mark is a comment at the head of the statement's text: it travels with the statement, costs
 * nothing where it is not read (PostgreSQL, PGlite in this thread, which commit when the
 * transaction's callback returns, as without it), and needs no state beside the statement.
 *
 * Whoever marks a statement promises that nothing after it in the transaction can fail: once it
 * has run the transaction is committed, and the callback must return. A statement run in the
 * transaction afterwards is refused.
 */
const MARK = '/* final statement */ ';

/** `query`, marked as its transaction's last statement (see the file's comment). */
export function asFinalStatement(query: SQL): SQL {
  return sql`${sql.raw(MARK)}${query}`;
}

/** Whether a statement's text carries the mark. */
export function isFinalStatement(text: string): boolean {
  return text.startsWith(MARK);
}
