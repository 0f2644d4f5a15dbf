import type { RequestHandler, Request } from 'express';
import type { Clock } from '../../clock';
import { TooManyRequests } from '../../errors';

export interface BucketSize {
  /** requests allowed in a burst */
  capacity: number;
  /** sustained requests per second */
  refillPerSecond: number;
}

/**
 * Token buckets per key, in memory: cheap enough to sit in front of the database during a
 * raid. `wait` only looks, `take` spends, so a request checked against several buckets
 * spends from none of them when one refuses it.
 */
export function createTokenBuckets(
  size: BucketSize & { clock: Clock; /** most keys tracked at once; the oldest are forgotten first */ maxKeys?: number },
) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const maxKeys = size.maxKeys ?? 100_000;

  /** The key's bucket refilled to now, moved to the most recent end of the map. */
  function current(key: string): { tokens: number; at: number } {
    const now = size.clock.now().getTime();
    const bucket = buckets.get(key) ?? { tokens: size.capacity, at: now };
    bucket.tokens = Math.min(size.capacity, bucket.tokens + ((now - bucket.at) / 1000) * size.refillPerSecond);
    bucket.at = now;
    buckets.delete(key);
    buckets.set(key, bucket);
    if (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value as string);
    return bucket;
  }

  return {
    /** Seconds until the key has a token (0: now). */
    wait(key: string): number {
      const bucket = current(key);
      return bucket.tokens >= 1 ? 0 : (1 - bucket.tokens) / size.refillPerSecond;
    },
    /** Spends one of the key's tokens if it has one; the seconds to wait otherwise (0: spent). */
    take(key: string): number {
      const bucket = current(key);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return (1 - bucket.tokens) / size.refillPerSecond;
    },
  };
}

export interface RateLimitOptions extends BucketSize {
  /** how a request is keyed (e.g. its IP hash); never a raw IP kept beyond this map */
  key: (req: Request) => string;
  clock: Clock;
  /** most keys tracked at once; the oldest are forgotten first */
  maxKeys?: number;
  /** the refusal's text, given the whole seconds of the Retry-After it is sent with */
  message?: (retryAfterSeconds: number) => string;
}

/** One token bucket per key in front of a route. */
export function createRateLimiter(options: RateLimitOptions) {
  const buckets = createTokenBuckets(options);
  const middleware: RequestHandler = (req, _res, next) => {
    const wait = buckets.take(options.key(req));
    next(wait > 0 ? TooManyRequests(wait, options.message) : undefined);
  };
  return { middleware, take: buckets.take };
}

/** "8 seconds", "1 minute", "2 minutes 5 seconds": a whole number of seconds as a person reads it, exactly. */
export function waitInWords(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (minutes === 0) return unit(rest, 'second');
  return rest === 0 ? unit(minutes, 'minute') : `${unit(minutes, 'minute')} ${unit(rest, 'second')}`;
}
