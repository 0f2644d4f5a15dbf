import type { RequestHandler } from 'express';
import { BadRequest } from '../../errors';

/**
 * Text from a request may not carry control characters. PostgreSQL cannot store NUL in
 * text at all (so it would fail deep in a query), and the other C0/C1 controls have no
 * business in names, notes or search terms: they only hide text from people reading it.
 * Tab, line feed and carriage return are allowed in body strings (multi-line notes);
 * query strings and URL paths allow none. The offending text is never repeated back
 * or logged: the answer names only the field.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const BODY_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const QUERY_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F]/;
/** a percent-encoded control character in the raw path (route parameters are decoded later) */
const PATH_FORBIDDEN = /%(?:[01][0-9a-f]|7f|c2%[89][0-9a-f])/i;

/** The path (`notes`, `filters.0`) of the first string, or object key, that breaks the rule, or null. */
export function findControlCharacter(value: unknown, forbidden: RegExp, at: string[] = [], depth = 0): string | null {
  if (typeof value === 'string') return forbidden.test(value) ? at.join('.').slice(0, 64) || 'request' : null;
  if (value === null || typeof value !== 'object' || depth > 32) return null;
  for (const [key, inner] of Object.entries(value)) {
    if (forbidden.test(key)) return [...at, '(a field name)'].join('.');
    const found = findControlCharacter(inner, forbidden, [...at, key], depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** 'Username cannot contain control characters': the field as the form names it. */
function controlCharacterMessage(field: string): string {
  return `${field.charAt(0).toUpperCase()}${field.slice(1)} cannot contain control characters`;
}

/** Refuses a request whose path, query string or parsed JSON body carries a control character: 400, nothing done. */
export const rejectControlCharacters: RequestHandler = (req, _res, next) => {
  if (PATH_FORBIDDEN.test(req.path)) {
    next(BadRequest('The address cannot contain control characters', 'path'));
    return;
  }
  const inQuery = findControlCharacter(req.query, QUERY_FORBIDDEN);
  if (inQuery !== null) {
    next(BadRequest(controlCharacterMessage(inQuery), inQuery));
    return;
  }
  const inBody = findControlCharacter(req.body, BODY_FORBIDDEN);
  if (inBody !== null) {
    next(BadRequest(controlCharacterMessage(inBody), inBody));
    return;
  }
  next();
};
