import { normalizeIp } from './ip-address';

/** The parts of a request (Express or node:http) that carry the peer address. */
export interface ClientAddressSource {
  /**
   * Express's req.ip: already resolved through X-Forwarded-For per the app's 'trust proxy'
   * (TRUST_PROXY: a hop count or trusted proxy addresses), i.e. the right-most address
   * in the chain that is not a trusted proxy; the entries a client writes itself are ignored
   */
  ip?: string | undefined;
  socket?: { remoteAddress?: string | undefined } | undefined;
}

/**
 * The visitor's address, normalised, or null when none is known. Forwarding headers
 * are deliberately not read here: only Express's `trust proxy` setting may decide
 * whether they are believed, otherwise any visitor could pick its own address.
 */
export function resolveClientIp(req: ClientAddressSource): string | null {
  return normalizeIp(req.ip) ?? normalizeIp(req.socket?.remoteAddress);
}
