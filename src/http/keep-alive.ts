import type http from 'node:http';

/**
 * How long the server keeps an idle connection open for the next request. Node's default, 5 s, is
 * shorter than the gaps inside one visitor's flow (reading the consent page, Discord's sign-in) and
 * than a reverse proxy's own idle timeout (nginx and cloud load balancers keep 60 s): the server then
 * closes a connection at the moment the other side sends a request on it, and that request is lost
 * ("socket hang up", a 502 at the proxy). A crowd made it common. Kept longer than the proxies' 60 s,
 * the proxy or the browser closes first.
 */
export const KEEP_ALIVE_MS = 65_000;

export function keepConnectionsAlive(server: http.Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Node needs the headers' timeout above the keep-alive one, or a kept connection's next request can be cut
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
}
