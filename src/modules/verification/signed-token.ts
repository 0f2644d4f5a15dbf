import crypto from 'node:crypto';

/** What a one-time token is for; a token signed for one purpose is not valid for another. */
export type TokenPurpose = 'consent' | 'oauth_state';

const NONCE_BYTES = 24;
const MAC_BYTES = 16;
/** nonce (32 base64url characters) . expiry (ms since the epoch, base 36) . MAC (22 base64url characters) */
const SIGNED_TOKEN = /^([A-Za-z0-9_-]{32})\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})$/;

function macOf(key: Buffer, purpose: TokenPurpose, body: string): Buffer {
  return crypto.createHmac('sha256', key).update(`one-time-token:${purpose}:${body}`, 'utf8').digest().subarray(0, MAC_BYTES);
}

/**
 * A single-use token that carries its own proof of issue: a random nonce, its expiry and an
 * HMAC of both (and of its purpose) under the server's key. Issuing one writes nothing to the
 * database; only its use is recorded (`one-time-tokens.repository.ts`), so a flood of issues
 * costs no storage and a visitor's flow makes two statements fewer.
 */
export function signToken(key: Buffer, purpose: TokenPurpose, expiresAt: Date): string {
  const body = `${crypto.randomBytes(NONCE_BYTES).toString('base64url')}.${expiresAt.getTime().toString(36)}`;
  return `${body}.${macOf(key, purpose, body).toString('base64url')}`;
}

/**
 * The expiry of a token this server signed for `purpose`, or null for anything else: another
 * purpose, another key, a tampered or malformed value. Expiry is the caller's to compare.
 */
export function readSignedToken(key: Buffer, purpose: TokenPurpose, token: string): Date | null {
  const parts = SIGNED_TOKEN.exec(token);
  if (!parts) return null;
  const given = Buffer.from(parts[3]!, 'base64url');
  const expected = macOf(key, purpose, `${parts[1]}.${parts[2]}`);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  const expiresAt = new Date(Number.parseInt(parts[2]!, 36));
  return Number.isNaN(expiresAt.getTime()) ? null : expiresAt;
}
