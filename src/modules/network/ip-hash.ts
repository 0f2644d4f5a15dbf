import crypto from 'node:crypto';
import { networkPrefixOf, normalizeIp } from './ip-address';

/**
 * Keyed hashes of a client address (docs/behaviour.md#personal-data-and-retention). A plain or salted SHA-256 of an
 * IPv4 address falls to brute force in minutes (2^32 candidates); an HMAC with a key
 * kept outside the database does not. The prefixes separate the two uses of one key.
 */

export interface IpHashes {
  /** HMAC-SHA256 (hex) of the normalised address */
  ipHash: string;
  /** HMAC-SHA256 (hex) of its /24 (IPv4) or /64 (IPv6) network, for weak matching */
  networkHash: string;
}

/** Thrown for input that is not an address. Its message never repeats the input. */
export class InvalidIpAddressError extends Error {
  constructor() {
    super('not a valid IP address');
    this.name = 'InvalidIpAddressError';
  }
}

const MIN_KEY_BYTES = 16;

function hmacHex(key: Buffer, message: string): string {
  return crypto.createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

/** The normalised address and its network prefix; throws for input that is not an address. */
function addressParts(key: Buffer, ip: string): { normalized: string; network: string } {
  if (key.length < MIN_KEY_BYTES) throw new Error(`the IP hash key must be at least ${MIN_KEY_BYTES} bytes`);
  const normalized = normalizeIp(ip);
  const network = normalized === null ? null : networkPrefixOf(normalized);
  if (normalized === null || network === null) throw new InvalidIpAddressError();
  return { normalized, network };
}

/** The two hashes, each under its own prefix (domain separation): of the normalised address, and of its network. */
const addressMac = (key: Buffer, normalized: string) => hmacHex(key, `ip:${normalized}`);
const networkMac = (key: Buffer, network: string) => hmacHex(key, `net:${network}`);

export function hashIp(key: Buffer, ip: string): IpHashes {
  const { normalized, network } = addressParts(key, ip);
  return { ipHash: addressMac(key, normalized), networkHash: networkMac(key, network) };
}

/** The address hash alone, one HMAC (the rate limiters' key, computed for every visitor request). */
export function hashAddress(key: Buffer, ip: string): string {
  return addressMac(key, addressParts(key, ip).normalized);
}

/** The network hash alone (e.g. for staff marking a network shared from a known address). */
export function hashNetwork(key: Buffer, ip: string): string {
  return networkMac(key, addressParts(key, ip).network);
}
