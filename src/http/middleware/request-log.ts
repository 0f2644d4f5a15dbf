import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../../logger';

/**
 * One log line per request: method, path (never the query string, which can carry
 * OAuth codes), status and duration. No addresses, headers or cookies.
 */
export function requestLog(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage) => (typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'].slice(0, 64) : randomUUID()),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    autoLogging: { ignore: (req: IncomingMessage) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics' },
    quietReqLogger: true,
    wrapSerializers: false,
  });
}
