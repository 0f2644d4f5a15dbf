import type { RequestHandler, Request } from 'express';
import type { Clock } from '../../clock';
import { TooManyRequests } from '../../errors';

export interface RateLimitOptions {
  /** requests allowed in a burst */
  capacity: number;
  /** sustained requests per second */
  refillPerSecond: number;
  /** how a request is keyed (e.g. its IP hash); never a raw IP kept beyond this map */
  key: (req: Request) => string;
  clock: Clock;
  /** most keys tracked at once; the oldest are forgotten first */
  maxKeys?: number;
  message?: string;
}

/** Token buckets per key, in memory: cheap enough to sit in front of the database during a raid. */
export function createRateLimiter(options: RateLimitOptions) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const maxKeys = options.maxKeys ?? 100_000;

  function take(key: string): number {
    const now = options.clock.now().getTime();
    const bucket = buckets.get(key) ?? { tokens: options.capacity, at: now };
    bucket.tokens = Math.min(options.capacity, bucket.tokens + ((now - bucket.at) / 1000) * options.refillPerSecond);
    bucket.at = now;
    buckets.delete(key);
    buckets.set(key, bucket); // most recent last
    if (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value as string);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / options.refillPerSecond;
  }

  const middleware: RequestHandler = (req, _res, next) => {
    const wait = take(options.key(req));
    next(wait > 0 ? TooManyRequests(wait, options.message) : undefined);
  };
  return { middleware, take };
}
