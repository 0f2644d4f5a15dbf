import { DEVICE_COOKIE_MAX_AGE_MS, deviceCookieFrom, deviceMatchesAccount, issueDeviceCookie, readDeviceCookie } from './device-cookie';

const KEYS = ['first-session-key-0123456789abcdef'];
const OWNER = { id: 1, username: 'Owner', passwordHash: '$2a$12$ownerhashownerhashownerhashownerhashownerhashownerha' };
const MOD = { id: 3, username: 'Mod', passwordHash: '$2a$12$modhashmodhashmodhashmodhashmodhashmodhashmodhashmo' };
const NOW = new Date('2026-03-01T12:00:00Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

describe('the staff device cookie', () => {
  const cookie = issueDeviceCookie(KEYS, OWNER, NOW);

  it('holds the account id and the issue time, and no username, address or password hash', () => {
    expect(cookie).toMatch(/^1\.1\.\d+\.[\w-]+\.[\w-]+$/);
    expect(cookie.split('.')[2]).toBe(String(NOW.getTime() / 1000));
    expect(cookie.toLowerCase()).not.toContain('owner');
    expect(cookie).not.toContain(OWNER.passwordHash.slice(7, 20));
  });

  it('is valid for the account that signed in, whatever the username case, until it expires', () => {
    const device = readDeviceCookie(KEYS, cookie, 'oWnEr', later(60_000));
    expect(device).toEqual({ staffId: 1, issuedAtSeconds: NOW.getTime() / 1000, passwordTag: expect.any(String) });
    expect(deviceMatchesAccount(KEYS, device!, OWNER)).toBe(true);
    expect(readDeviceCookie(KEYS, cookie, 'Owner', later(DEVICE_COOKIE_MAX_AGE_MS))).not.toBeNull();
  });

  it('is unknown once expired, or issued in the future', () => {
    expect(readDeviceCookie(KEYS, cookie, 'Owner', later(DEVICE_COOKIE_MAX_AGE_MS + 1000))).toBeNull();
    expect(readDeviceCookie(KEYS, cookie, 'Owner', later(-60 * 60_000))).toBeNull();
  });

  it('is unknown when tampered with', () => {
    const [version, , issued, tag, signature] = cookie.split('.') as [string, string, string, string, string];
    const flip = (text: string) => `${text.slice(0, -1)}${text.endsWith('A') ? 'B' : 'A'}`;
    for (const forged of [
      [version, '3', issued, tag, signature], // another account's id
      [version, '1', String(Number(issued) + 86_400), tag, signature], // a later issue time
      [version, '1', issued, flip(tag), signature],
      [version, '1', issued, tag, flip(signature)],
      ['2', '1', issued, tag, signature],
    ])
      expect(readDeviceCookie(KEYS, forged.join('.'), 'Owner', NOW)).toBeNull();
    for (const junk of ['', 'x', `${cookie}.x`, cookie.slice(0, -2), `${cookie}${'a'.repeat(300)}`])
      expect(readDeviceCookie(KEYS, junk, 'Owner', NOW)).toBeNull();
    expect(readDeviceCookie(KEYS, undefined, 'Owner', NOW)).toBeNull();
  });

  it("is unknown with another account's username, and never matches another account", () => {
    expect(readDeviceCookie(KEYS, cookie, 'Mod', NOW)).toBeNull();
    const modCookie = issueDeviceCookie(KEYS, MOD, NOW);
    const modDevice = readDeviceCookie(KEYS, modCookie, 'Mod', NOW)!;
    expect(deviceMatchesAccount(KEYS, modDevice, OWNER)).toBe(false);
    // the same id with another password hash: the account whose password changed
    expect(deviceMatchesAccount(KEYS, modDevice, { id: MOD.id, passwordHash: OWNER.passwordHash })).toBe(false);
  });

  it('is unknown under other keys, and still valid while its key is kept for verifying after a rotation', () => {
    expect(readDeviceCookie(['another-key-entirely-0123456789ab'], cookie, 'Owner', NOW)).toBeNull();
    const rotated = ['new-session-key-0123456789abcdef', ...KEYS];
    const device = readDeviceCookie(rotated, cookie, 'Owner', NOW);
    expect(device).not.toBeNull();
    expect(deviceMatchesAccount(rotated, device!, OWNER)).toBe(true);
  });

  it('is read from a Cookie header among other cookies', () => {
    expect(deviceCookieFrom(`gk_session=abc; gk_staff_device=${cookie}; other=1`)).toBe(cookie);
    expect(deviceCookieFrom('gk_session=abc; xgk_staff_device=1')).toBeUndefined();
    expect(deviceCookieFrom(undefined)).toBeUndefined();
  });
});
