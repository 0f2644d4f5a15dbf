import { sha256Hex, sha256HexSync } from './sha256';

// FIPS 180-4 / NIST vectors, plus non-ASCII input (UTF-8 encoded).
const vectors: Array<[string, string]> = [
  ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
  ['a'.repeat(1000), '41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3'],
  ['héllo wörld 🛡️', 'dadbbbe73134fd5f2126428ddaded009cdadf273694d598f41e14220bb84869e'],
];

describe('sha256HexSync', () => {
  it.each(vectors)('hashes %j', (input, digest) => {
    expect(sha256HexSync(input)).toBe(digest);
  });
});

describe('sha256Hex', () => {
  const originalCrypto = globalThis.crypto;
  afterEach(() => Object.defineProperty(globalThis, 'crypto', { value: originalCrypto, configurable: true }));

  it('uses Web Crypto when present and agrees with the pure implementation', async () => {
    const { webcrypto } = jest.requireActual<{ webcrypto: Crypto }>('crypto');
    const { TextEncoder: NodeTextEncoder } = jest.requireActual<{ TextEncoder: typeof TextEncoder }>('util');
    const digest = jest.fn((algorithm: string, data: BufferSource) => webcrypto.subtle.digest(algorithm, data));
    Object.defineProperty(globalThis, 'crypto', { value: { subtle: { digest } }, configurable: true });
    const hadEncoder = typeof globalThis.TextEncoder !== 'undefined';
    if (!hadEncoder) Object.defineProperty(globalThis, 'TextEncoder', { value: NodeTextEncoder, configurable: true });
    try {
      for (const input of ['abc', 'héllo wörld 🛡️', 'x'.repeat(200)]) {
        await expect(sha256Hex(input)).resolves.toBe(sha256HexSync(input));
      }
      expect(digest).toHaveBeenCalled();
    } finally {
      if (!hadEncoder) delete (globalThis as { TextEncoder?: unknown }).TextEncoder;
    }
  });

  it('falls back to the pure implementation without crypto.subtle (plain http)', async () => {
    Object.defineProperty(globalThis, 'crypto', { value: {}, configurable: true });
    await expect(sha256Hex('abc')).resolves.toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
