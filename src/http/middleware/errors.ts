import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../../logger';
import { isDatabaseUnavailable } from '../../db/db-errors';
import { isAppError, NotFound } from '../../errors';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  /** set by http-errors on client errors */
  expose?: boolean;
  /** zlib's code when a body said it was compressed and was not */
  code?: string;
}

/** Unknown /api routes answer JSON, never the SPA. */
export const apiNotFound: RequestHandler = (req, _res, next) => next(NotFound(`Route ${req.method} ${req.baseUrl}${req.path}`));

/** The one place errors become responses: `{error, code, field?}`, never a stack trace. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    if (isAppError(error)) {
      if (error.headers) res.set(error.headers);
      res.status(error.status).json({ error: error.message, code: error.code, ...(error.field ? { field: error.field } : {}) });
      return;
    }
    const parserError = error as BodyParserError;
    if (parserError?.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'Malformed JSON body', code: 'bad_json' });
      return;
    }
    if (parserError?.type === 'entity.too.large') {
      res.status(413).json({ error: 'Request body too large', code: 'too_large' });
      return;
    }
    if (parserError?.type === 'encoding.unsupported') {
      res.status(415).json({ error: 'Unsupported Content-Encoding: send the body uncompressed, or gzip, deflate or br', code: 'unsupported_encoding' });
      return;
    }
    if (typeof parserError?.code === 'string' && parserError.code.startsWith('Z_') && parserError.status === 400) {
      // Content-Encoding: gzip/deflate/br over a body that is not: the client's mistake, not ours
      res.status(400).json({ error: 'The body is not encoded as its Content-Encoding says', code: 'bad_encoding' });
      return;
    }
    if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500 && (parserError.type || parserError.expose)) {
      res.status(parserError.status).json({ error: 'Malformed request body', code: 'bad_body' });
      return;
    }
    // the router's own 400 for a path parameter that is not valid percent-encoding
    // (`/api/discord/user/%`): a URIError carrying status 400, not a server fault
    if (error instanceof URIError && parserError.status === 400) {
      res.status(400).json({ error: 'Malformed URL', code: 'bad_url' });
      return;
    }
    if (isDatabaseUnavailable(error)) {
      // a restart or failover of the database server: the next request gets a fresh connection
      logger.warn({ err: error, method: req.method, path: req.path }, 'database unavailable');
      res.status(503).set('Retry-After', '2').json({ error: 'The service is briefly unavailable. Please try again in a moment.', code: 'unavailable' });
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    res.status(500).json({ error: 'Internal server error', code: 'internal' });
  };
}
