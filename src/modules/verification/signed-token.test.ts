import { readSignedToken, signToken } from './signed-token';

describe('signed one-time tokens', () => {
  const key = Buffer.alloc(32, 5);
  const expiresAt = new Date('2026-11-27T04:10:00.000Z');

  it('carries its expiry, and a new random nonce each time', () => {
    const a = signToken(key, 'consent', expiresAt);
    const b = signToken(key, 'consent', expiresAt);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}\.[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
    expect(a.length).toBeLessThanOrEqual(200); // the consent body's limit
    expect(readSignedToken(key, 'consent', a)).toEqual(expiresAt);
    expect(readSignedToken(key, 'consent', b)).toEqual(expiresAt);
  });

  it('is valid only for the purpose and the key it was signed with', () => {
    const token = signToken(key, 'consent', expiresAt);
    expect(readSignedToken(key, 'oauth_state', token)).toBeNull();
    expect(readSignedToken(Buffer.alloc(32, 6), 'consent', token)).toBeNull();
  });

  it('refuses a token whose nonce, expiry or MAC was changed', () => {
    const token = signToken(key, 'oauth_state', expiresAt);
    const [nonce, expiry, mac] = token.split('.') as [string, string, string];
    const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    const later = (expiresAt.getTime() + 24 * 60 * 60 * 1000).toString(36);
    for (const tampered of [`${flip(nonce, 3)}.${expiry}.${mac}`, `${nonce}.${later}.${mac}`, `${nonce}.${expiry}.${flip(mac, 0)}`]) {
      expect(readSignedToken(key, 'oauth_state', tampered)).toBeNull();
    }
  });

  it('refuses anything malformed without throwing', () => {
    const token = signToken(key, 'consent', expiresAt);
    for (const value of [
      '',
      '.',
      '..',
      'x'.repeat(43),
      token.slice(0, -1),
      `${token}x`,
      `${token}.`,
      token.replace(/\./g, '-'),
      token.toUpperCase(),
      `${'A'.repeat(32)}.zzzzzzzzzzz.${'A'.repeat(22)}`,
    ]) {
      expect(readSignedToken(key, 'consent', value)).toBeNull();
    }
  });
});
