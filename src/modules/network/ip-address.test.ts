import { isNonPublicIp, networkPrefixOf, normalizeIp, parseIp } from './ip-address';

describe('normalizeIp', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['  203.0.113.7 ', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8:0000:0001:0000:0000:0000:0001', '2001:db8:0:1::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['::1', '::1'],
    ['::', '::'],
    ['1::', '1::'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2:3:4:5:6'],
    ['::127.0.0.1', '::7f00:1'],
  ])('%s → %s', (raw, expected) => {
    expect(normalizeIp(raw)).toBe(expected);
  });

  it.each(['', 'localhost', '203.0.113', '203.0.113.256', '01.2.3.4', '2001:db8::g', '1.2.3.4:80', 'unknown'])('rejects %p', (raw) => {
    expect(normalizeIp(raw)).toBeNull();
  });

  it('rejects non-strings', () => {
    expect(normalizeIp(undefined)).toBeNull();
    expect(normalizeIp(null)).toBeNull();
  });
});

describe('networkPrefixOf', () => {
  it.each([
    ['203.0.113.7', '203.0.113.0/24'],
    ['::ffff:203.0.113.200', '203.0.113.0/24'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8::/64'],
  ])('%s → %s', (ip, prefix) => {
    expect(networkPrefixOf(ip)).toBe(prefix);
  });
});

describe('parseIp', () => {
  it('gives numbers for IPv4 and bigints for IPv6', () => {
    expect(parseIp('255.255.255.255')).toEqual({ family: 4, value: 0xffffffff });
    expect(parseIp('::ffff:10.0.0.1')).toEqual({ family: 4, value: 0x0a000001 });
    expect(parseIp('::2')).toEqual({ family: 6, value: 2n });
    expect(parseIp('8000::')).toEqual({ family: 6, value: 1n << 127n });
    expect(parseIp('nope')).toBeNull();
  });
});

describe('isNonPublicIp', () => {
  it.each([
    ['127.0.0.1', true],
    ['::ffff:127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['169.254.10.10', true],
    ['100.64.0.1', true],
    ['100.128.0.1', false],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd12:3456::1', true],
    ['2001:db8::1', false],
    ['192.0.2.10', false],
    ['198.51.100.23', false],
    ['8.8.8.8', false],
    ['2606:4700::1111', false],
    ['garbage', false],
  ])('%s → %s', (ip, expected) => {
    expect(isNonPublicIp(ip)).toBe(expected);
  });
});
