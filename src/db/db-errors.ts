/** The SQLSTATE of a database error, looking through wrappers (drizzle puts the driver's error in `cause`). */
export function sqlState(error: unknown): string | undefined {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** Socket-level codes and messages of a connection that went away or never came. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
const LOST_CONNECTION = /Connection terminated|connection timeout|Client has encountered a connection error/i;
/**
 * node-postgres's pool when every connection stayed busy for as long as a request may wait for one
 * (client.ts, POOL_CHECKOUT_WAIT_MS): nothing was sent, so the work can run again, and the visitor is
 * told to come back in a moment rather than given a 500.
 */
const POOL_EXHAUSTED = /^timeout exceeded when trying to connect$/i;

/**
 * True when the database server is unreachable or dropped the connection (restart,
 * administrator shutdown, network), or is too busy to give a connection in time (a crowd):
 * a passing outage to answer 503 with Retry-After, not a fault of ours.
 * SQLSTATE class 08 (connection exception) and 57P01–57P03 (shutdown, cannot connect now).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  if (state && (state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03')) return true;
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (typeof message === 'string' && (LOST_CONNECTION.test(message) || POOL_EXHAUSTED.test(message))) return true;
  }
  return false;
}

/** prepared statement does not exist (DEALLOCATE ALL, DISCARD ALL) */
export const STATEMENT_DROPPED = '26000';

/**
 * Errors a kept (prepared) statement goes on giving once the tables changed under it, where the same
 * text prepared afresh (pglite-prepared.ts) is parsed again:
 * cached plan must not change result type (0A000), prepared statement does not exist (26000, e.g.
 * after DEALLOCATE or DISCARD ALL), and the parse-time class 42 (a column's type changed, so the
 * types PostgreSQL inferred for the parameters at the first run no longer fit: 42804). A statement
 * that is simply wrong fails the same way when parsed again, so dropping the kept one costs nothing.
 */
export function isStaleStatement(error: unknown): boolean {
  const code = sqlState(error);
  return code === STATEMENT_DROPPED || code === '0A000' || (code !== undefined && code.startsWith('42'));
}
