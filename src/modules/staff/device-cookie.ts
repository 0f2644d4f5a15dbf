import crypto from 'node:crypto';

/**
 * The staff device cookie: proof that this browser signed in to this staff account before.
 *
 * A sign-in that carries a valid one skips the small gate in front of unknown sign-ins
 * (sign-in-gate.ts) and counts as a known client for the login throttle (login-throttle.ts),
 * so the owner signs in at once during a password spray however many addresses it comes from.
 * This is OWASP's device cookie: a stranger cannot make one, so a spray cannot use it.
 *
 * The value is `1.<staff id>.<issued, seconds>.<password tag>.<signature>`. It holds no secret, no
 * address and no username. The signature (HMAC-SHA256 under the session cookie keys, the first
 * signs, every key verifies) covers the value and the account's username, so a cookie of one
 * account is worthless with another username; it is checked before the database is touched. The
 * password tag (an HMAC of the account's stored password hash) is checked once the account is
 * read: changing the password voids every device cookie of the account. Signing out does not, as
 * a device stays the same device. Comparisons are timing-safe; anything that does not check out
 * (tampered, another account's, expired, from the future, old keys) is simply an unknown device.
 */

export const DEVICE_COOKIE = 'gk_staff_device';
/** how long a device stays known after its last sign-in (each sign-in issues a fresh cookie) */
export const DEVICE_COOKIE_MAX_AGE_MS = 90 * 24 * 60 * 60_000;
/** a clock slightly ahead on another web process must not void a cookie it just issued */
const FUTURE_SKEW_MS = 5 * 60_000;
const VERSION = '1';

/** A device cookie whose signature and age check out; the account's password is not checked yet. */
export interface SignedDevice {
  staffId: number;
  issuedAtSeconds: number;
  passwordTag: string;
}

const mac = (key: string, label: string, data: string) =>
  crypto.createHmac('sha256', key).update(`gk-staff-device-${label}\n${data}`, 'utf8').digest('base64url');

/** True when one of `keys` made `given` for `data` (timing-safe for each key). */
function madeByOneOf(keys: readonly string[], label: string, data: string, given: string): boolean {
  const givenBytes = Buffer.from(given, 'utf8');
  return keys.some((key) => {
    const expected = Buffer.from(mac(key, label, data), 'utf8');
    return expected.length === givenBytes.length && crypto.timingSafeEqual(expected, givenBytes);
  });
}

const tagData = (staffId: number, issuedAtSeconds: number, passwordHash: string) => `${staffId}\n${issuedAtSeconds}\n${passwordHash}`;
const signedData = (body: string, username: string) => `${body}\n${username.toLowerCase()}`;

/** A fresh device cookie value for an account that has just signed in. */
export function issueDeviceCookie(
  keys: readonly string[],
  account: { id: number; username: string; passwordHash: string },
  now: Date,
): string {
  const key = keys[0];
  if (key === undefined) throw new Error('at least one cookie signing key is needed');
  const issuedAtSeconds = Math.floor(now.getTime() / 1000);
  const body = `${VERSION}.${account.id}.${issuedAtSeconds}.${mac(key, 'password', tagData(account.id, issuedAtSeconds, account.passwordHash))}`;
  return `${body}.${mac(key, 'signature', signedData(body, account.username))}`;
}

/**
 * The device a cookie names when it was signed for the typed `username` and is not expired; null
 * for anything else. Needs no database: it decides whether a sign-in may skip the gate.
 */
export function readDeviceCookie(
  keys: readonly string[],
  value: string | undefined,
  username: string,
  now: Date,
  maxAgeMs = DEVICE_COOKIE_MAX_AGE_MS,
): SignedDevice | null {
  if (!value || value.length > 200) return null;
  const parts = value.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) return null;
  const [, id, issued, passwordTag, signature] = parts as [string, string, string, string, string];
  if (!/^[1-9]\d{0,9}$/.test(id) || !/^\d{1,12}$/.test(issued)) return null;
  if (!madeByOneOf(keys, 'signature', signedData(parts.slice(0, 4).join('.'), username), signature)) return null;
  const issuedAtMs = Number(issued) * 1000;
  if (issuedAtMs > now.getTime() + FUTURE_SKEW_MS || now.getTime() - issuedAtMs > maxAgeMs) return null;
  return { staffId: Number(id), issuedAtSeconds: Number(issued), passwordTag };
}

/** True when the device signed in to this very account with its current password. */
export function deviceMatchesAccount(
  keys: readonly string[],
  device: SignedDevice,
  account: { id: number; passwordHash: string },
): boolean {
  if (device.staffId !== account.id) return false;
  return madeByOneOf(keys, 'password', tagData(account.id, device.issuedAtSeconds, account.passwordHash), device.passwordTag);
}

/** The device cookie's value in a Cookie header, if any. */
export function deviceCookieFrom(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const at = part.indexOf('=');
    if (at > -1 && part.slice(0, at).trim() === DEVICE_COOKIE) return part.slice(at + 1).trim();
  }
  return undefined;
}
