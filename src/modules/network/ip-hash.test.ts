import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveClientIp } from './client-ip';
import { hashAddress, hashIp, hashNetwork, InvalidIpAddressError } from './ip-hash';
import { IP_HASH_KEY_FILE, loadOrCreateIpHashKey } from './ip-hash-key';

const key = Buffer.alloc(32, 7);

describe('hashIp', () => {
  it('is an HMAC of the normalised address and of its network, domain separated', () => {
    const { ipHash, networkHash } = hashIp(key, '203.0.113.7');
    expect(ipHash).toBe(crypto.createHmac('sha256', key).update('ip:203.0.113.7').digest('hex'));
    expect(networkHash).toBe(crypto.createHmac('sha256', key).update('net:203.0.113.0/24').digest('hex'));
    expect(ipHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives one hash for two spellings of one address', () => {
    expect(hashIp(key, '::ffff:203.0.113.7')).toEqual(hashIp(key, '203.0.113.7'));
    expect(hashIp(key, '2001:DB8:0:0::1')).toEqual(hashIp(key, '2001:db8::1'));
  });

  it('shares the network hash within a /24 or /64 and not across', () => {
    expect(hashIp(key, '203.0.113.7').networkHash).toBe(hashIp(key, '203.0.113.250').networkHash);
    expect(hashIp(key, '203.0.113.7').ipHash).not.toBe(hashIp(key, '203.0.113.250').ipHash);
    expect(hashIp(key, '203.0.113.7').networkHash).not.toBe(hashIp(key, '203.0.114.7').networkHash);
    expect(hashIp(key, '2001:db8:1:2::1').networkHash).toBe(hashIp(key, '2001:db8:1:2:ffff::9').networkHash);
    expect(hashIp(key, '2001:db8:1:2::1').networkHash).not.toBe(hashIp(key, '2001:db8:1:3::1').networkHash);
  });

  it('gives each hash alone as it gives both, and refuses a non-address alone too', () => {
    for (const ip of ['203.0.113.7', '::ffff:203.0.113.7', '2001:db8:1:2::1']) {
      expect(hashAddress(key, ip)).toBe(hashIp(key, ip).ipHash);
      expect(hashNetwork(key, ip)).toBe(hashIp(key, ip).networkHash);
    }
    expect(() => hashAddress(key, 'nope')).toThrow(InvalidIpAddressError);
    expect(() => hashNetwork(key, 'nope')).toThrow(InvalidIpAddressError);
    expect(() => hashAddress(Buffer.alloc(8), '203.0.113.7')).toThrow(/at least/);
  });

  it('depends on the key', () => {
    expect(hashIp(Buffer.alloc(32, 8), '203.0.113.7').ipHash).not.toBe(hashIp(key, '203.0.113.7').ipHash);
  });

  it('rejects a non-address without repeating it', () => {
    let thrown: unknown;
    try {
      hashIp(key, 'secret-input');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidIpAddressError);
    expect((thrown as Error).message).not.toContain('secret-input');
  });

  it('refuses a short key', () => {
    expect(() => hashIp(Buffer.alloc(4), '203.0.113.7')).toThrow(/key/);
  });
});

describe('resolveClientIp', () => {
  it("prefers Express's req.ip (which honours trust proxy) and normalises it", () => {
    expect(resolveClientIp({ ip: '::ffff:198.51.100.4', socket: { remoteAddress: '127.0.0.1' } })).toBe('198.51.100.4');
  });
  it('falls back to the socket address', () => {
    expect(resolveClientIp({ socket: { remoteAddress: '::1' } })).toBe('::1');
  });
  it('gives null when there is no usable address', () => {
    expect(resolveClientIp({ ip: 'garbage', socket: {} })).toBeNull();
    expect(resolveClientIp({})).toBeNull();
  });
});

describe('loadOrCreateIpHashKey', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-iphash-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('generates 32 bytes once into DATA_DIR/ip-hash.key with mode 0600, then reads them back', () => {
    const folder = path.join(dir, 'nested');
    const first = loadOrCreateIpHashKey(folder);
    expect(first).toHaveLength(32);
    const file = path.join(folder, IP_HASH_KEY_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(first.toString('hex'));
    expect(loadOrCreateIpHashKey(folder).equals(first)).toBe(true);
    expect(fs.readdirSync(folder)).toEqual([IP_HASH_KEY_FILE]);
  });

  it('uses the environment key when given, hex-decoding 64 hex characters', () => {
    const hex = 'ab'.repeat(32);
    expect(loadOrCreateIpHashKey(dir, hex).equals(Buffer.from(hex, 'hex'))).toBe(true);
    const text = 'a passphrase that is long enough to be a key';
    expect(loadOrCreateIpHashKey(dir, text).equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(fs.existsSync(path.join(dir, IP_HASH_KEY_FILE))).toBe(false);
  });

  it("gives the same key from a copied key file's content as from the file", () => {
    const fromFile = loadOrCreateIpHashKey(dir);
    const copied = fs.readFileSync(path.join(dir, IP_HASH_KEY_FILE), 'utf8');
    expect(loadOrCreateIpHashKey(dir, copied).equals(fromFile)).toBe(true);
  });

  it('refuses a damaged key file instead of replacing it', () => {
    fs.writeFileSync(path.join(dir, IP_HASH_KEY_FILE), 'short');
    expect(() => loadOrCreateIpHashKey(dir)).toThrow(/does not hold an IP hash key/);
    expect(fs.readFileSync(path.join(dir, IP_HASH_KEY_FILE), 'utf8')).toBe('short');
  });
});
