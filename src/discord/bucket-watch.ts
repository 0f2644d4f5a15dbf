import type { REST } from '@discordjs/rest';

/**
 * What the bot's REST client has learnt of Discord's rate-limit buckets from the answers'
 * X-RateLimit-* headers: which bucket a route (method + route) falls in, and how much of
 * that bucket is left. Discord publishes no numbers and may change them at any time, so
 * nothing here is hard-coded: a route the bot has not called yet is unknown.
 *
 * The outbox asks it when Discord offers two routes for one change (a member's roles:
 * Modify Guild Member, or Add / Remove Guild Member Role, whose bucket is separate), to
 * pick the one whose bucket lets the change start sooner. It is an estimate for choosing
 * only; @discordjs/rest still queues every call by the real bucket, so a wrong guess
 * costs time, never a 429.
 */
export interface BucketWatch {
  /**
   * The earliest time (ms since the epoch) at which `calls` more requests on each of these
   * routes could all have started, or undefined when a route's bucket is not known yet.
   */
  readyAt(requests: readonly { method: string; route: string; calls: number }[], now?: number): number | undefined;
  /** a request on this route is being sent: it counts against its bucket until `done` */
  begin(method: string, route: string): () => void;
  /** requests on this route sent and not answered yet */
  outstanding(method: string, route: string): number;
}

interface BucketState {
  limit: number;
  remaining: number;
  /** when the current window ends (ms since the epoch) */
  resetAt: number;
  /** the longest X-RateLimit-Reset-After seen: the window's length (its first call is told the whole window) */
  windowMs: number;
}

const routeKey = (method: string, route: string) => `${method.toUpperCase()} ${route}`;

/** The route as @discordjs/rest names it: snowflakes replaced by `:id` (`/guilds/:id/members/:id/roles/:id`). */
export function bucketRoute(path: string): string {
  return path.replaceAll(/\d{17,19}/g, ':id');
}

export function createBucketWatch(now: () => number = Date.now): BucketWatch & { learn(method: string, route: string, headers: { get(name: string): string | null }, at?: number): void } {
  const bucketOf = new Map<string, string>();
  const buckets = new Map<string, BucketState>();
  const pending = new Map<string, number>();

  function learn(method: string, route: string, headers: { get(name: string): string | null }, at = now()): void {
    const hash = headers.get('x-ratelimit-bucket');
    const limit = Number(headers.get('x-ratelimit-limit'));
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const resetAfterMs = Number(headers.get('x-ratelimit-reset-after')) * 1000;
    if (!hash || !Number.isFinite(limit) || limit <= 0 || !Number.isFinite(remaining) || !Number.isFinite(resetAfterMs)) return;
    bucketOf.set(routeKey(method, route), hash);
    const known = buckets.get(hash);
    const resetAt = at + resetAfterMs;
    // answers can arrive out of order: within one window the smallest remaining is the truth
    const sameWindow = known !== undefined && Math.abs(known.resetAt - resetAt) < 50;
    buckets.set(hash, {
      limit,
      remaining: sameWindow ? Math.min(known.remaining, remaining) : remaining,
      resetAt,
      windowMs: Math.max(known?.windowMs ?? 0, resetAfterMs),
    });
  }

  /** When `calls` more requests could have started on this bucket, counting those already on their way. */
  function bucketReadyAt(hash: string, calls: number, t: number): number | undefined {
    const state = buckets.get(hash);
    if (!state) return undefined;
    const onTheirWay = pending.get(hash) ?? 0;
    const fresh = t >= state.resetAt;
    const left = (fresh ? state.limit : state.remaining) - onTheirWay;
    if (calls <= left) return t;
    const windows = Math.ceil((calls - Math.max(0, left)) / state.limit);
    const nextReset = fresh ? t + state.windowMs : state.resetAt;
    return nextReset + (windows - 1) * state.windowMs;
  }

  return {
    learn,
    readyAt(requests, t = now()) {
      // requests that share a bucket wait for each other: add them up per bucket first
      const perBucket = new Map<string, number>();
      for (const request of requests) {
        const hash = bucketOf.get(routeKey(request.method, request.route));
        if (!hash) return undefined;
        perBucket.set(hash, (perBucket.get(hash) ?? 0) + request.calls);
      }
      let latest = t;
      for (const [hash, calls] of perBucket) {
        const at = bucketReadyAt(hash, calls, t);
        if (at === undefined) return undefined;
        latest = Math.max(latest, at);
      }
      return latest;
    },
    begin(method, route) {
      const key = routeKey(method, route);
      // counted against the bucket when known, else against the route until an answer names its bucket
      const counter = bucketOf.get(key) ?? key;
      pending.set(counter, (pending.get(counter) ?? 0) + 1);
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        pending.set(counter, Math.max(0, (pending.get(counter) ?? 1) - 1));
      };
    },
    outstanding(method, route) {
      const key = routeKey(method, route);
      const hash = bucketOf.get(key);
      return (pending.get(key) ?? 0) + (hash ? (pending.get(hash) ?? 0) : 0);
    },
  };
}

/** A watch fed by every answer the REST client receives. */
export function watchBuckets(rest: REST): BucketWatch {
  const watch = createBucketWatch();
  rest.on('response', (request, response) => watch.learn(request.method, request.route, response.headers));
  return watch;
}
