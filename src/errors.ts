/**
 * Errors are values with a stable code and an HTTP status. Handlers throw them;
 * one error middleware serialises them as `{error, code, field?}`; anything else
 * becomes a 500 with a generic message and no stack.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const BadRequest = (message: string, field?: string) => new AppError(400, 'bad_request', message, field);
export const Unauthorized = (message = 'Authentication required') => new AppError(401, 'unauthorized', message);
export const Forbidden = (message = 'You do not have permission to do that') => new AppError(403, 'forbidden', message);
export const NotFound = (what: string) => new AppError(404, 'not_found', `${what} not found`);
export const Conflict = (message: string, field?: string) => new AppError(409, 'conflict', message, field);
/** A 429 with Retry-After in whole seconds; a message given as a function is told those same seconds, so the text and the header agree. */
export const TooManyRequests = (
  retryAfterSeconds: number,
  message: string | ((retryAfterSeconds: number) => string) = 'Too many requests, please slow down',
) => {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError(429, 'rate_limited', typeof message === 'string' ? message : message(seconds), undefined, {
    'Retry-After': String(seconds),
  });
};
export const ServiceUnavailable = (message: string) => new AppError(503, 'unavailable', message);

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
