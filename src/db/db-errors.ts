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
 * True when the database server is unreachable or dropped the connection (restart,
 * administrator shutdown, network): a passing outage to answer 503, not a fault of ours.
 * SQLSTATE class 08 (connection exception) and 57P01–57P03 (shutdown, cannot connect now).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  if (state && (state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03')) return true;
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true;
  }
  return false;
}
