import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../logger';
import { isDatabaseUnavailable } from '../../db/db-errors';
import { isAppError, NotFound } from '../../errors';
import { errorPage, isPageNavigation } from '../error-page';

/** How long a client is asked to wait when the database is briefly out of reach (Retry-After). */
export const DATABASE_BUSY_RETRY_AFTER_SECONDS = 2;

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

/**
 * Sends an error: `{error, code, field?}` to an API call, the same message as a page to a
 * browser navigation (error-page.ts), which with a Retry-After reloads itself after it.
 */
function answer(
  req: Request,
  res: Response,
  status: number,
  json: { error: string; code: string; field?: string },
  headers: Record<string, string> = {},
): void {
  res.status(status).set(headers);
  if (!isPageNavigation(req)) {
    res.json(json);
    return;
  }
  const retryAfter = headers['Retry-After'] === undefined ? undefined : Number(headers['Retry-After']);
  res
    .set('Cache-Control', 'no-store')
    .type('html')
    .send(errorPage(status, json.error, Number.isInteger(retryAfter) ? retryAfter : undefined));
}

/** Codes of a connection the client closed: a cancelled download, an aborted upload, a closed tab. */
const CLIENT_GONE_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/** Whether the error only says the client went away (nobody is left to answer, and nothing failed on our side). */
export function isClientAbort(error: unknown, req: Request): boolean {
  const e = error as BodyParserError | null;
  if (e?.type === 'request.aborted') return true;
  return typeof e?.code === 'string' && CLIENT_GONE_CODES.has(e.code) && (req.destroyed || req.socket?.destroyed === true);
}

/** The one place errors become responses: `{error, code, field?}` (or its page, for a navigation), never a stack trace. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (isClientAbort(error, req)) {
      // not an error: a debug line without a stack, and nobody to answer
      logger.debug(
        { method: req.method, path: req.path, code: (error as BodyParserError).code ?? (error as BodyParserError).type },
        'client went away before the answer',
      );
      if (!res.headersSent) res.destroy();
      return;
    }
    if (res.headersSent) return next(error);
    if (isAppError(error)) {
      answer(
        req,
        res,
        error.status,
        { error: error.message, code: error.code, ...(error.field ? { field: error.field } : {}) },
        error.headers,
      );
      return;
    }
    const parserError = error as BodyParserError;
    if (parserError?.type === 'entity.parse.failed') {
      answer(req, res, 400, { error: 'Malformed JSON body', code: 'bad_json' });
      return;
    }
    if (parserError?.type === 'entity.too.large') {
      answer(req, res, 413, { error: 'Request body too large', code: 'too_large' });
      return;
    }
    if (parserError?.type === 'encoding.unsupported') {
      answer(req, res, 415, {
        error: 'Unsupported Content-Encoding: send the body uncompressed, or gzip, deflate or br',
        code: 'unsupported_encoding',
      });
      return;
    }
    if (typeof parserError?.code === 'string' && parserError.code.startsWith('Z_') && parserError.status === 400) {
      // Content-Encoding: gzip/deflate/br over a body that is not: the client's mistake, not ours
      answer(req, res, 400, { error: 'The body is not encoded as its Content-Encoding says', code: 'bad_encoding' });
      return;
    }
    if (
      typeof parserError?.status === 'number' &&
      parserError.status >= 400 &&
      parserError.status < 500 &&
      (parserError.type || parserError.expose)
    ) {
      answer(req, res, parserError.status, { error: 'Malformed request body', code: 'bad_body' });
      return;
    }
    // the router's own 400 for a path parameter that is not valid percent-encoding
    // (`/api/discord/user/%`): a URIError carrying status 400, not a server fault
    if (error instanceof URIError && parserError.status === 400) {
      answer(req, res, 400, { error: 'Malformed URL', code: 'bad_url' });
      return;
    }
    if (isDatabaseUnavailable(error)) {
      // a restart or failover of the database server: the next request gets a fresh connection
      logger.warn({ err: error, method: req.method, path: req.path }, 'database unavailable');
      answer(
        req,
        res,
        503,
        { error: 'The service is briefly unavailable. Please try again in a moment.', code: 'unavailable' },
        { 'Retry-After': String(DATABASE_BUSY_RETRY_AFTER_SECONDS) },
      );
      return;
    }
    logger.error({ err: error, method: req.method, path: req.path }, 'unhandled error');
    answer(req, res, 500, { error: 'Internal server error', code: 'internal' });
  };
}
