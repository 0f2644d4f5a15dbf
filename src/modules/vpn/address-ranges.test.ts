import { createAddressMatcher, parseAddressList, parseAddressRange } from './address-ranges';

describe('parseAddressList', () => {
  it('reads addresses and ranges, skips comments and blanks, reports bad lines', () => {
    const text = [
      '# Tor exits',
      '',
      '185.220.101.1',
      '  192.0.2.0/24   # trailing comment',
      '2001:db8:1234::/48',
      'not-an-address',
      '10.0.0.0/33',
      '::ffff:198.51.100.0/120',
      '2001:db8::1\r',
    ].join('\n');
    const parsed = parseAddressList(text);
    expect(parsed.ranges).toHaveLength(5);
    expect(parsed.invalidLines).toEqual([6, 7]);
  });

  it.each(['1.2.3.4/', '1.2.3.4/a', '1.2.3.4/24/1', '/24', '1.2.3.4/-1', '2001:db8::/129'])('refuses %p', (entry) => {
    expect(parseAddressRange(entry)).toBeNull();
  });

  it('clears host bits', () => {
    expect(parseAddressRange('192.0.2.77/24')).toEqual({ family: 4, base: 0xc0000200, prefix: 24 });
  });
});

describe('createAddressMatcher', () => {
  const matcher = createAddressMatcher(
    parseAddressList(
      ['185.220.101.1', '192.0.2.0/24', '10.0.0.0/8', '2001:db8:1234::/48', '2001:db8::1', '0.0.0.0/0 # never in real lists']
        .slice(0, 5)
        .join('\n'),
    ).ranges,
  );

  it.each([
    ['185.220.101.1', true],
    ['185.220.101.2', false],
    ['192.0.2.0', true],
    ['192.0.2.255', true],
    ['192.0.3.0', false],
    ['10.255.255.255', true],
    ['11.0.0.0', false],
    ['::ffff:192.0.2.9', true],
    ['2001:db8:1234:ffff::1', true],
    ['2001:db8:1235::1', false],
    ['2001:db8::1', true],
    ['2001:0db8:0000::0001', true],
    ['2001:db8::2', false],
    ['not an ip', false],
  ])('%s → %s', (ip, expected) => {
    expect(matcher.contains(ip)).toBe(expected);
  });

  it('handles /0 and /32', () => {
    const all = createAddressMatcher(parseAddressList('0.0.0.0/0\n::/0').ranges);
    expect(all.contains('8.8.8.8')).toBe(true);
    expect(all.contains('2001:db8::5')).toBe(true);
    const one = createAddressMatcher(parseAddressList('255.255.255.255/32').ranges);
    expect(one.contains('255.255.255.255')).toBe(true);
    expect(one.contains('255.255.255.254')).toBe(false);
  });
});
