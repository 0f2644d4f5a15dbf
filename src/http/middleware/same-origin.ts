import type { RequestHandler } from 'express';
import { AppError } from '../../errors';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * CSRF rule for every state-changing request: a browser must show it is same-origin
 * (Origin header, or Sec-Fetch-Site), and what it carries must be JSON, which a
 * cross-site HTML form cannot send: a form's content type is refused even when the form
 * is empty (an old browser sends neither Origin nor Sec-Fetch-Site).
 */
export function requireSameOrigin(allowedOrigins: () => string[]): RequestHandler {
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const site = req.headers['sec-fetch-site'];
    if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') {
      return next(new AppError(403, 'cross_origin', 'Cross-site requests are not allowed'));
    }
    const origin = req.headers.origin;
    if (typeof origin === 'string') {
      const own = `${req.protocol}://${req.get('host') ?? ''}`;
      if (origin !== own && !allowedOrigins().includes(origin)) {
        return next(new AppError(403, 'cross_origin', 'Cross-site requests are not allowed'));
      }
    }
    // an HTML form always declares a form type, even when it is empty; only JSON passes
    const declared = req.headers['content-type'];
    const mediaType = typeof declared === 'string' ? (declared.split(';')[0] ?? '').trim().toLowerCase() : '';
    const isJson = mediaType === 'application/json' || /^application\/[\w.+-]+\+json$/.test(mediaType);
    if ((mediaType !== '' || hasBody(req)) && !isJson) {
      return next(new AppError(415, 'unsupported_media_type', 'Request body must be JSON (Content-Type: application/json)'));
    }
    next();
  };
}
