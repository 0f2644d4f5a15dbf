import Keygrip from 'keygrip';
import { cookieKeys } from './cookie-keys';

describe('cookie signing keys', () => {
  const data = 'gk_session=eyJjb25zZW50Ijp7ImF0IjoxfX0=';

  it('signs as Keygrip does, so cookies signed before keep working and Keygrip accepts these', () => {
    for (const keys of [['one key'], ['new key', 'old key'], ['ünïcode ключ', 'x']]) {
      const ours = cookieKeys(keys);
      const theirs = new Keygrip(keys);
      expect(ours.sign(data)).toBe(theirs.sign(data));
      expect(theirs.verify(data, ours.sign(data))).toBe(true);
      expect(ours.verify(data, theirs.sign(data))).toBe(true);
    }
  });

  it('finds the key that signed, so a rotated cookie is re-signed with the first; refuses anything else', () => {
    const keys = cookieKeys(['new key', 'old key']);
    expect(keys.index(data, new Keygrip(['new key']).sign(data))).toBe(0);
    expect(keys.index(data, new Keygrip(['old key']).sign(data))).toBe(1);
    const signature = keys.sign(data);
    expect(keys.index(data, new Keygrip(['someone else']).sign(data))).toBe(-1);
    expect(keys.index(`${data}x`, signature)).toBe(-1);
    expect(keys.index(data, signature.slice(1))).toBe(-1);
    expect(keys.index(data, `${signature}=`)).toBe(-1);
    expect(keys.index(data, '')).toBe(-1);
    expect(keys.verify(data, 'é'.repeat(signature.length))).toBe(false);
  });

  it('needs a key', () => {
    expect(() => cookieKeys([])).toThrow(/at least one/);
  });
});
