import { parseIp } from '../network';

/**
 * Address lists the operator maintains (Tor exits, datacenter ranges). Format, one
 * entry per line: an IPv4 or IPv6 address, or a CIDR range ('192.0.2.0/24',
 * '2001:db8::/32'); '#' starts a comment (whole line or after an entry); blank lines
 * are ignored. A line that is not an entry is reported, never fatal, so one typo does
 * not disable the whole list.
 */

export interface AddressRange {
  family: 4 | 6;
  /** the network address (host bits cleared) */
  base: number | bigint;
  prefix: number;
}

export interface ParsedAddressList {
  ranges: AddressRange[];
  /** 1-based numbers of lines that were neither an entry, a comment nor blank */
  invalidLines: number[];
}

function maskIpv4(value: number, prefix: number): number {
  return prefix === 0 ? 0 : (value & (0xffffffff << (32 - prefix))) >>> 0;
}

function maskIpv6(value: bigint, prefix: number): bigint {
  if (prefix === 0) return 0n;
  const mask = ((1n << BigInt(prefix)) - 1n) << BigInt(128 - prefix);
  return value & mask;
}

export function parseAddressRange(entry: string): AddressRange | null {
  const [address = '', prefixText, extra] = entry.trim().split('/');
  if (extra !== undefined) return null;
  const ip = parseIp(address);
  if (!ip) return null;
  const max = ip.family === 4 ? 32 : 128;
  let prefix = max;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText)) return null;
    prefix = Number(prefixText);
    // an IPv4-mapped IPv6 range ('::ffff:192.0.2.0/120') is an IPv4 range
    if (ip.family === 4 && address.includes(':')) prefix -= 96;
    if (prefix < 0 || prefix > max) return null;
  }
  return ip.family === 4
    ? { family: 4, base: maskIpv4(ip.value, prefix), prefix }
    : { family: 6, base: maskIpv6(ip.value, prefix), prefix };
}

export function parseAddressList(text: string): ParsedAddressList {
  const ranges: AddressRange[] = [];
  const invalidLines: number[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    const range = parseAddressRange(line);
    if (range) ranges.push(range);
    else invalidLines.push(index + 1);
  });
  return { ranges, invalidLines };
}

export interface AddressMatcher {
  contains(ip: string): boolean;
  readonly size: number;
}

/**
 * Membership in a set of ranges in O(number of distinct prefix lengths): each range
 * goes into the set of its prefix length, and an address is masked once per length.
 */
export function createAddressMatcher(ranges: readonly AddressRange[]): AddressMatcher {
  const v4 = new Map<number, Set<number>>();
  const v6 = new Map<number, Set<bigint>>();
  for (const range of ranges) {
    if (range.family === 4) {
      const set = v4.get(range.prefix) ?? new Set<number>();
      set.add(range.base as number);
      v4.set(range.prefix, set);
    } else {
      const set = v6.get(range.prefix) ?? new Set<bigint>();
      set.add(range.base as bigint);
      v6.set(range.prefix, set);
    }
  }
  return {
    size: ranges.length,
    contains(raw: string): boolean {
      const ip = parseIp(raw);
      if (!ip) return false;
      if (ip.family === 4) {
        for (const [prefix, set] of v4) if (set.has(maskIpv4(ip.value, prefix))) return true;
        return false;
      }
      for (const [prefix, set] of v6) if (set.has(maskIpv6(ip.value, prefix))) return true;
      return false;
    },
  };
}
