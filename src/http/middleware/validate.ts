import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { BadRequest } from '../../errors';

type Part = 'body' | 'params' | 'query';

/** Turns a zod failure into `400 {error, field}`; on success the parsed value replaces the raw one. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || undefined;
  const message = issue?.message && !/^Invalid input/.test(issue.message) ? issue.message : `Invalid ${field ?? 'request'}`;
  throw BadRequest(message, field);
}

export function validate<S extends z.ZodType>(schema: S, part: Part = 'body'): RequestHandler {
  return (req, _res, next) => {
    const parsed = parseOrThrow(schema, part === 'body' ? (req.body ?? {}) : req[part]);
    if (part === 'query') {
      // Express 5's req.query is a getter: keep the parsed copy where handlers can read it
      Object.defineProperty(req, 'query', { value: parsed, writable: true, configurable: true });
    } else {
      (req as unknown as Record<Part, unknown>)[part] = parsed;
    }
    next();
  };
}
