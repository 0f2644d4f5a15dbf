import crypto from 'node:crypto';

/** What cookie-session (through the `cookies` package) asks of its `keys` option when it is not a list: Keygrip's methods. */
export interface CookieKeys {
  sign(data: string): string;
  verify(data: string, digest: string): boolean;
  /** the index of the key that made `digest`, -1 for none */
  index(data: string, digest: string): number;
}

/**
 * The session cookie's signing keys, first key signs, every key verifies (rotation). Signatures
 * are Keygrip's own (keygrip 1.1, the default of cookie-session: HMAC-SHA1 of `name=value`,
 * base64url without padding), so cookies signed before this keep working and the other way
 * round. What differs is the check: Keygrip compares with tsscmp, which for every request that
 * carries a cookie drew 32 random bytes and computed two HMAC-SHA256s to compare two strings
 * (1.4% of the main thread in a CPU profile of the bench's verification flows); here it is
 * `crypto.timingSafeEqual`, constant-time as well. Each key is imported once, not per request.
 */
export function cookieKeys(keys: readonly string[]): CookieKeys {
  if (keys.length === 0) throw new Error('at least one cookie signing key is needed');
  const secrets = keys.map((key) => crypto.createSecretKey(Buffer.from(key, 'utf8')));
  const sign = (data: string, secret: crypto.KeyObject) => crypto.createHmac('sha1', secret).update(data).digest('base64url');
  const index = (data: string, digest: string) => {
    const given = Buffer.from(digest, 'utf8');
    for (let i = 0; i < secrets.length; i++) {
      const expected = Buffer.from(sign(data, secrets[i]!), 'utf8');
      if (expected.length === given.length && crypto.timingSafeEqual(expected, given)) return i;
    }
    return -1;
  };
  return {
    sign: (data) => sign(data, secrets[0]!),
    verify: (data, digest) => index(data, digest) > -1,
    index,
  };
}
