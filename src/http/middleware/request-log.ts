import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../../logger';

/** Probes and scrapes: answered often, never logged. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One log line per request once it is answered, at debug: method, path (never the query string,
 * which can carry OAuth codes), status and duration, and the request id (X-Request-Id when
 * the proxy sent one, else a new one). No addresses, headers or cookies. A status of 500
 * or more is logged as an error. A client that went away before the answer was sent (a
 * cancelled download, a closed tab) is no error: a debug line says so.
 *
 * Nothing is built for a line the logger's level drops: a request costs a time stamp and
 * one listener (this sits in front of every request, so it is kept to that).
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (QUIET_PATHS.has(req.url)) return next();
    const started = Date.now();
    let done = false;
    const answered = (aborted: boolean) => {
      if (done) return;
      done = true;
      const failed = !aborted && res.statusCode >= 500;
      const level = failed ? 'error' : 'debug';
      if (!logger.isLevelEnabled(level)) return;
      const header = req.headers['x-request-id'];
      const id = typeof header === 'string' ? header.slice(0, 64) : randomUUID();
      const line = {
        reqId: id,
        req: { id, method: req.method, path: req.originalUrl.split('?')[0] },
        res: { status: res.statusCode },
        ...(failed ? { err: { type: 'Error', message: `failed with status code ${res.statusCode}` } } : {}),
        responseTime: Date.now() - started,
      };
      logger[level](line, failed ? 'request errored' : aborted ? 'request aborted by the client' : 'request completed');
    };
    // 'close' alone when the client went away before the answer was sent
    res.once('finish', () => answered(false));
    res.once('close', () => answered(!res.writableFinished));
    next();
  };
}
