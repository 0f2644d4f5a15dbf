import {
  browserTokenFromCookieHeader,
  chooseBrowserToken,
  generateBrowserToken,
  hashBrowserToken,
  parseBrowserToken,
} from './browser-token';

describe('browser token', () => {
  const key = Buffer.alloc(32, 7);

  it('is 32 random bytes in base64url: 43 characters, a new one each time', () => {
    const a = generateBrowserToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(generateBrowserToken()).not.toBe(a);
  });

  it.each([
    ['too short', 'a'.repeat(42)],
    ['too long', 'a'.repeat(44)],
    ['padding', `${'a'.repeat(42)}=`],
    ['markup', `<script>${'a'.repeat(35)}`],
    ['a number', 42],
    ['an object', { token: 'a'.repeat(43) }],
    ['null', null],
    ['empty', ''],
  ])('ignores a malformed token (%s)', (_label, value) => {
    expect(parseBrowserToken(value)).toBeNull();
  });

  it('hashes with the key under its own purpose label, never returning the token', () => {
    const token = generateBrowserToken();
    const hash = hashBrowserToken(key, token);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashBrowserToken(key, token));
    expect(hashBrowserToken(Buffer.alloc(32, 8), token)).not.toBe(hash);
    expect(hash).not.toContain(token);
  });

  it('reads the cookie from a Cookie header, skipping malformed values', () => {
    const token = 'x'.repeat(43);
    expect(browserTokenFromCookieHeader(`gk_session=abc; gk_browser=${token}; other=1`)).toBe(token);
    expect(browserTokenFromCookieHeader('gk_browser=tampered<>; gk_session=abc')).toBeNull();
    expect(browserTokenFromCookieHeader(`gk_browser=bad; gk_browser=${token}`)).toBe(token);
    expect(browserTokenFromCookieHeader(`xgk_browser=${token}`)).toBeNull();
    expect(browserTokenFromCookieHeader(undefined)).toBeNull();
  });

  it("prefers the page's copy (it survives a cleared cookie), then the cookie's", () => {
    const page = 'p'.repeat(43);
    const cookie = 'c'.repeat(43);
    expect(chooseBrowserToken(page, cookie)).toBe(page);
    expect(chooseBrowserToken('garbage', cookie)).toBe(cookie);
    expect(chooseBrowserToken(undefined, null)).toBeNull();
  });
});
