import type { RequestHandler } from 'express';

/**
 * The sandbox prints one local address (http://localhost:3000) and registers exactly that
 * callback with the Discord emulator. Opened under another loopback name (127.0.0.1, [::1]),
 * the sign-in would send a callback the emulator refuses ("Invalid OAuth2 redirect_uri"), and
 * the session cookie would live on a second origin. So a page request under another loopback
 * name is sent to the printed address first, path and query kept, before any flow starts.
 * Names that are not loopback (a LAN address, a real domain) are left alone.
 */

/** localhost (and *.localhost), 127.0.0.0/8 and ::1, as URL hostnames give them ('[::1]'). */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '[::1]' || name === '::1') return true;
  return /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(name);
}

/** Hostname and port of a Host header value, or null when it does not parse. */
function hostOf(host: string | undefined): { hostname: string; port: string } | null {
  if (!host) return null;
  try {
    const url = new URL(`http://${host}`);
    return { hostname: url.hostname, port: url.port || '80' };
  } catch {
    return null;
  }
}

export function canonicalLoopbackRedirect(canonicalOrigin: string): RequestHandler {
  const canonical = new URL(canonicalOrigin);
  const canonicalPort = canonical.port || '80';
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // the Host header as the browser sent it: the name in the address bar (no proxy is in front of a sandbox)
    const host = hostOf(req.headers.host);
    if (host === null || host.hostname === canonical.hostname || !isLoopbackHostname(host.hostname)) return next();
    // another port is another server in front (the Vite dev server passes its own Host through): not ours to move
    if (host.port !== canonicalPort) return next();
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, `${canonical.origin}${req.originalUrl}`);
  };
}
