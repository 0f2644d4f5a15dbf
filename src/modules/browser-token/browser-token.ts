import crypto from 'node:crypto';

/**
 * The same-browser signal (docs/behaviour.md#alt-detection): a first-party random value
 * the consent page gives each browser profile, kept by the browser twice (an HttpOnly
 * cookie set by the server, and the page's local storage, sent with the consent) so that
 * clearing one of them does not lose it. A fresh or private profile has neither and gets
 * a new one. The server keeps only a keyed hash of it, on the verification attempt, so it
 * expires with the attempt (retention) and is erased with the member.
 *
 * The token is chosen by the browser as far as the server can tell (anyone can copy a
 * cookie), so it is never trusted alone: scoring counts it only together with the same
 * device, and not at all once other members carried it on several networks.
 */

/** The cookie's name (the page's local storage key is the same). */
export const BROWSER_TOKEN_COOKIE = 'gk_browser';
/** A year: the cookie outlives many retention windows; the stored hash does not. */
export const BROWSER_TOKEN_MAX_AGE_MS = 365 * 24 * 60 * 60 * 1000;

/** 32 random bytes, base64url without padding: exactly 43 characters of [A-Za-z0-9_-]. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export function generateBrowserToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** The token when `value` is one, else null: anything malformed (tampered, truncated, another type) is ignored, never an error. */
export function parseBrowserToken(value: unknown): string | null {
  return typeof value === 'string' && TOKEN_FORMAT.test(value) ? value : null;
}

/**
 * HMAC-SHA256 (hex) of a token under the product's hashing key; the purpose label keeps
 * it apart from the key's other uses (addresses, networks).
 */
export function hashBrowserToken(key: Buffer, token: string): string {
  return crypto.createHmac('sha256', key).update(`browser-token:${token}`, 'utf8').digest('hex');
}

/** The value of the browser token cookie in a Cookie header (the first valid one), or null. */
export function browserTokenFromCookieHeader(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== BROWSER_TOKEN_COOKIE) continue;
    const token = parseBrowserToken(part.slice(eq + 1).trim());
    if (token) return token;
  }
  return null;
}

/**
 * Which token a consent carries: the one the page kept (local storage survives a cleared
 * cookie), else the cookie's (the cookie survives cleared site storage), else none.
 */
export function chooseBrowserToken(fromPage: unknown, fromCookie: string | null): string | null {
  return parseBrowserToken(fromPage) ?? fromCookie;
}
