import crypto from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { normalizeIp } from '../modules/network';

const isLoopback = (address: string | null) => address !== null && (address === '::1' || address.startsWith('127.'));

/** Compares in constant time (via fixed-length digests), so a wrong token reveals nothing about the right one. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/** True when the request reached us directly from this machine and not through a proxy. */
function isDirectLoopback(req: Request): boolean {
  if (req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined) return false;
  return isLoopback(normalizeIp(req.socket.remoteAddress)) && isLoopback(normalizeIp(req.ip));
}

/**
 * Who may read /metrics. With a token (METRICS_TOKEN) every caller must send
 * `Authorization: Bearer <token>`: a missing or wrong one gets 401. Without a token only
 * a scraper on this machine talking to the product directly is answered; anything that
 * arrives from elsewhere, or through a proxy (it carries X-Forwarded-For), gets 403, so
 * a reverse proxy that forwards every path does not publish the metrics.
 */
export function metricsAccess(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (token !== undefined) {
      const header = req.get('authorization') ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (match?.[1] && sameToken(match[1], token)) {
        next();
        return;
      }
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer realm="metrics"')
        .json({ error: 'A valid metrics token is required (Authorization: Bearer <METRICS_TOKEN>)', code: 'unauthorized' });
      return;
    }
    if (isDirectLoopback(req)) {
      next();
      return;
    }
    res.status(403).json({ error: 'Metrics are served on loopback only; set METRICS_TOKEN to scrape from elsewhere', code: 'forbidden' });
  };
}
