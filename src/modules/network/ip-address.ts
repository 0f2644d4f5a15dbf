import net from 'node:net';

/**
 * IP address parsing and canonical text forms. Two spellings of one address
 * ('::ffff:203.0.113.7' and '203.0.113.7', '2001:DB8:0::1' and '2001:db8::1') must hash
 * the same, so every address is normalised before it is hashed or matched.
 */

export type ParsedIp = { family: 4; value: number } | { family: 6; value: bigint };

/** Strips what a socket or a header may add around an address: spaces, [brackets], an IPv6 zone id. */
function stripDecorations(raw: string): string {
  let s = raw.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone !== -1 && s.includes(':')) s = s.slice(0, zone);
  return s;
}

function ipv4ToNumber(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function numberToIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

/** The eight 16-bit groups of a valid IPv6 address (net.isIPv6 already said yes). */
function ipv6Groups(ip: string): number[] {
  let text = ip.toLowerCase();
  if (text.includes('.')) {
    // an embedded IPv4 tail ('::ffff:1.2.3.4') becomes two hex groups
    const cut = text.lastIndexOf(':');
    const v4 = ipv4ToNumber(text.slice(cut + 1));
    text = `${text.slice(0, cut + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].map((g) => parseInt(g, 16));
}

/** RFC 5952 text: lower case, no leading zeros, the longest run (≥ 2) of zero groups as '::'. */
function formatIpv6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < groups.length;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLength < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function isIpv4Mapped(groups: number[]): boolean {
  return groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
}

/**
 * The canonical text of an address, or null when it is not one. IPv4-mapped IPv6
 * addresses (what a dual-stack socket reports for IPv4 clients) become plain IPv4.
 */
export function normalizeIp(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  const s = stripDecorations(raw);
  if (net.isIPv4(s)) return s;
  if (!net.isIPv6(s)) return null;
  const groups = ipv6Groups(s);
  if (isIpv4Mapped(groups)) return numberToIpv4(((groups[6]! << 16) | groups[7]!) >>> 0);
  return formatIpv6(groups);
}

/** The address as a number (IPv4) or bigint (IPv6), for range matching; null when invalid. */
export function parseIp(raw: string): ParsedIp | null {
  const ip = normalizeIp(raw);
  if (ip === null) return null;
  if (net.isIPv4(ip)) return { family: 4, value: ipv4ToNumber(ip) };
  const value = ipv6Groups(ip).reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
  return { family: 6, value };
}

/** The prefix lengths of the network an address belongs to, for weak matching (one home, one carrier cell). */
export const NETWORK_PREFIX_BITS = { ipv4: 24, ipv6: 64 } as const;

/** The /24 (IPv4) or /64 (IPv6) network an address belongs to, as CIDR text. */
export function networkPrefixOf(raw: string): string | null {
  const ip = normalizeIp(raw);
  if (ip === null) return null;
  const { ipv4, ipv6 } = NETWORK_PREFIX_BITS;
  if (net.isIPv4(ip)) return `${numberToIpv4((ipv4ToNumber(ip) & (~0 << (32 - ipv4))) >>> 0)}/${ipv4}`;
  const kept = ipv6 / 16;
  return `${formatIpv6([...ipv6Groups(ip).slice(0, kept), ...new Array<number>(8 - kept).fill(0)])}/${ipv6}`;
}

/** Loopback, private, link-local, carrier-grade NAT and unspecified ranges: no provider knows them. */
const NON_PUBLIC_V4: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8
  [0x0a000000, 8], // 10.0.0.0/8
  [0x64400000, 10], // 100.64.0.0/10
  [0x7f000000, 8], // 127.0.0.0/8
  [0xa9fe0000, 16], // 169.254.0.0/16
  [0xac100000, 12], // 172.16.0.0/12
  [0xc0a80000, 16], // 192.168.0.0/16
];
const NON_PUBLIC_V6: [bigint, number][] = [
  [0n, 127], // :: and ::1
  [0xfc00n << 112n, 7], // fc00::/7 unique local
  [0xfe80n << 112n, 10], // fe80::/10 link local
];

/**
 * True for addresses that cannot be a visitor's public address. Seeing one as the client
 * address usually means the app sits behind a proxy that TRUST_PROXY does not trust.
 * Documentation ranges (192.0.2.0/24, …) are deliberately not included: the sandbox uses them.
 */
export function isNonPublicIp(raw: string): boolean {
  const ip = parseIp(raw);
  if (!ip) return false;
  if (ip.family === 4) {
    return NON_PUBLIC_V4.some(([base, prefix]) => (ip.value & (0xffffffff << (32 - prefix))) >>> 0 === base);
  }
  return NON_PUBLIC_V6.some(([base, prefix]) => ip.value >> BigInt(128 - prefix) === base >> BigInt(128 - prefix));
}
