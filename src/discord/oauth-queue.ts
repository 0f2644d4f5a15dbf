import type { OutboundResponse } from '../outbound-http';

/** A queued call could not start before its deadline: Discord's bucket (or global limit) stays closed past it. */
export class OAuthQueueTimeout extends Error {
  constructor(
    /** how much longer the caller would have had to wait, as far as the queue knows */
    readonly retryAfterMs: number,
  ) {
    super(`Discord rate limit: no room before the deadline (${retryAfterMs} ms more)`);
    this.name = 'OAuthQueueTimeout';
  }
}

/** What one bucket's headers taught: null until its first answer. */
interface Bucket {
  limit: number | null;
  /** calls the current window still has room for (our own count, never above what Discord said) */
  remaining: number;
  /** when the current window ends (ms, this process's clock); null while a new window's first answer is awaited */
  resetAt: number | null;
  inFlight: number;
  /** counts the windows this process started; an answer to a call sent in an earlier one says nothing of the current one */
  window: number;
}

interface Waiting {
  route: string;
  /** 0 first (a visitor is waiting), 1 after (background work such as a revocation) */
  priority: 0 | 1;
  seq: number;
  deadline: number;
  send: () => Promise<OutboundResponse>;
  resolve: (response: OutboundResponse) => void;
  reject: (error: unknown) => void;
}

/** The X-RateLimit-* headers of one answer, as Discord documents them. */
function rateLimitOf(response: OutboundResponse) {
  const number = (name: string) => {
    const value = response.headers.get(name);
    const parsed = value === null || value === '' ? NaN : Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  };
  const scope = response.headers.get('x-ratelimit-scope');
  return {
    limit: number('x-ratelimit-limit'),
    remaining: number('x-ratelimit-remaining'),
    resetAfterMs: ((s) => (s === null ? null : s * 1000))(number('x-ratelimit-reset-after')),
    bucket: response.headers.get('x-ratelimit-bucket'),
    global: response.headers.get('x-ratelimit-global') === 'true' || scope === 'global',
  };
}

/**
 * Discord's wait on a 429: the body's retry_after (seconds, fractional) or the Retry-After
 * header (seconds). Reads a copy of the body text, which stays readable for the caller.
 */
async function retryAfterMsOf(response: OutboundResponse): Promise<{ ms: number | null; global: boolean }> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { retry_after?: unknown; global?: unknown };
    const global = body.global === true;
    if (typeof body.retry_after === 'number' && Number.isFinite(body.retry_after))
      return { ms: Math.max(0, Math.ceil(body.retry_after * 1000)), global };
  } catch {
    // not JSON: the header decides
  }
  const header = Number(response.headers.get('retry-after'));
  return { ms: Number.isFinite(header) && header >= 0 ? header * 1000 : null, global: false };
}

/**
 * A pause's jitter: up to a tenth of it, at least 10 ms and at most 250 ms of spread, so
 * callers limited at the same moment do not all come back in the same one.
 */
export function pauseJitterMs(waitMs: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(250, Math.max(10, waitMs / 10)));
}

/**
 * One queue for the OAuth calls this app makes with its own client credentials (the code
 * exchange, the revocation): every sign-in in the process goes through it, so a crowd waits
 * here in order instead of each visitor asking Discord and retrying on its own (that drew
 * about N²/2L 429s for N visitors at L per second, each one counting toward the
 * invalid-request limit past which Discord bans the address).
 *
 * Nothing here knows a rate: the buckets are learnt from Discord's X-RateLimit-Limit,
 * -Remaining, -Reset-After and -Bucket headers. A route not answered yet sends one call at a
 * time until its first answer teaches its bucket; then up to Remaining calls go at once, and
 * the rest wait for the window's end (plus a little jitter, so several processes do not all
 * come back in the same millisecond). A 429 closes the bucket (or, when Discord says the
 * global limit or scope, every bucket) for its Retry-After plus jitter, and the call goes
 * back to the head of the queue. A call that cannot start before its deadline is refused
 * with OAuthQueueTimeout, so its caller can offer the visitor a fresh sign-in.
 */
export function createOAuthQueue(options: { now?: () => number; random?: () => number } = {}) {
  const now = options.now ?? (() => performance.now());
  const random = options.random ?? Math.random;
  const buckets = new Map<string, Bucket>();
  /** route → bucket id, once an answer named it (routes sharing a bucket then share its state) */
  const bucketOfRoute = new Map<string, string>();
  let waiting: Waiting[] = [];
  let globalUntil = 0;
  let seq = 0;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;

  const jitter = (waitMs: number) => pauseJitterMs(waitMs, random);

  function bucketFor(route: string): Bucket {
    const key = bucketOfRoute.get(route) ?? `route:${route}`;
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = { limit: null, remaining: 0, resetAt: null, inFlight: 0, window: 0 };
      buckets.set(key, bucket);
    }
    return bucket;
  }

  /** When `bucket` lets one more call go: now, a time, or 'answer' (wait for an answer in flight). */
  function readyAt(bucket: Bucket, at: number): number | 'answer' {
    if (at < globalUntil) return globalUntil;
    if (bucket.limit === null) {
      // not learnt yet: one call at a time, after the wait of a 429 that came without headers
      if (bucket.resetAt !== null && at < bucket.resetAt) return bucket.resetAt;
      return bucket.inFlight === 0 ? at : 'answer';
    }
    if (bucket.resetAt !== null && at >= bucket.resetAt) {
      // the window is over: a fixed window starts again full
      bucket.remaining = bucket.limit;
      bucket.resetAt = null;
      bucket.window++;
    }
    if (bucket.remaining > 0) return at;
    // a window started with no call left to time it (the one sent failed): one more call finds out
    if (bucket.resetAt === null) return bucket.inFlight === 0 ? at : 'answer';
    return bucket.resetAt;
  }

  function pump(): void {
    const at = now();
    let wakeAt = Infinity;
    const blocked = new Set<Bucket>();
    const still: Waiting[] = [];
    for (const item of waiting) {
      const bucket = bucketFor(item.route);
      if (blocked.has(bucket)) {
        // behind another call of its bucket: only its own deadline can end its wait now
        if (at >= item.deadline) item.reject(new OAuthQueueTimeout(0));
        else {
          still.push(item);
          wakeAt = Math.min(wakeAt, item.deadline);
        }
        continue;
      }
      const ready = readyAt(bucket, at);
      if (ready === at) {
        bucket.remaining = Math.max(0, bucket.remaining - 1);
        bucket.inFlight++;
        void dispatch(item, bucket, bucket.window);
        continue;
      }
      blocked.add(bucket);
      if (ready !== 'answer' && ready > item.deadline) {
        item.reject(new OAuthQueueTimeout(Math.ceil(ready - at)));
        blocked.delete(bucket); // the next one may have a later deadline
        continue;
      }
      if (at >= item.deadline) {
        item.reject(new OAuthQueueTimeout(0));
        continue;
      }
      still.push(item);
      wakeAt = Math.min(wakeAt, item.deadline, ready === 'answer' ? Infinity : ready + jitter(ready - at));
    }
    waiting = still;
    schedule(wakeAt);
  }

  function schedule(at: number): void {
    if (at === Infinity || at >= timerAt) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerAt = Infinity;
        pump();
      },
      Math.max(0, at - now()),
    );
    timer.unref();
  }

  function enqueue(item: Waiting, front: boolean): void {
    // by priority, then in arrival order; a call sent back after a 429 keeps its place
    const index = waiting.findIndex(
      (other) => other.priority > item.priority || (other.priority === item.priority && (front ? other.seq > item.seq : false)),
    );
    if (index === -1) waiting.push(item);
    else waiting.splice(index, 0, item);
  }

  async function dispatch(item: Waiting, bucket: Bucket, window: number): Promise<void> {
    let response: OutboundResponse;
    try {
      response = await item.send();
    } catch (error) {
      bucket.inFlight--;
      item.reject(error);
      pump();
      return;
    }
    bucket.inFlight--;
    const headers = rateLimitOf(response);
    const at = now();
    const learnt = learn(item.route, bucket, headers, at, window);
    if (response.status === 429) {
      const wait = await retryAfterMsOf(response);
      const waitMs = wait.ms ?? headers.resetAfterMs ?? 1000;
      if (headers.global || wait.global) globalUntil = Math.max(globalUntil, at + waitMs + jitter(waitMs));
      else {
        learnt.remaining = 0;
        learnt.resetAt = Math.max(learnt.resetAt ?? 0, at + waitMs + jitter(waitMs));
      }
      enqueue(item, true);
    } else item.resolve(response);
    pump();
  }

  /** Takes in an answer's headers; returns the bucket the route now belongs to. */
  function learn(route: string, bucket: Bucket, headers: ReturnType<typeof rateLimitOf>, at: number, window: number): Bucket {
    let target = bucket;
    if (headers.bucket && bucketOfRoute.get(route) !== headers.bucket) {
      // the route's own state moves to the bucket Discord named (shared with any route already there)
      const existing = buckets.get(headers.bucket);
      buckets.delete(`route:${route}`);
      bucketOfRoute.set(route, headers.bucket);
      if (existing) target = existing;
      else buckets.set(headers.bucket, bucket);
    }
    if (headers.limit === null || headers.remaining === null || headers.resetAfterMs === null) return target;
    const resetAt = at + headers.resetAfterMs;
    if (target.limit === null) {
      // the route's first answer: Discord's count (this call went alone)
      target.remaining = headers.remaining;
      target.resetAt = resetAt;
    } else if (target !== bucket) {
      // counted in another route's state before Discord named their shared bucket: never more room than Discord says
      target.remaining = Math.min(target.remaining, headers.remaining);
    } else if (window !== target.window) {
      // a call sent in an earlier window: it says nothing of this one
    } else if (target.resetAt === null) {
      // the first answer of a window this process started: its end, and never more room than Discord says
      target.remaining = Math.min(target.remaining, headers.remaining);
      target.resetAt = resetAt;
    } else if (resetAt > target.resetAt + 5) {
      // Discord's window ends later than we thought: its count, less our calls still on their way
      target.remaining = Math.max(0, headers.remaining - target.inFlight);
      target.resetAt = resetAt;
    } else target.remaining = Math.min(target.remaining, headers.remaining);
    target.limit = headers.limit;
    return target;
  }

  return {
    /**
     * Sends `send` when the route's bucket has room; resolves with the first answer that is not
     * a 429. `deadlineMs`: how long the caller can wait for its turn (from now).
     */
    run(
      route: string,
      send: () => Promise<OutboundResponse>,
      options: { deadlineMs: number; background?: boolean },
    ): Promise<OutboundResponse> {
      return new Promise<OutboundResponse>((resolve, reject) => {
        enqueue(
          { route, priority: options.background ? 1 : 0, seq: ++seq, deadline: now() + options.deadlineMs, send, resolve, reject },
          false,
        );
        pump();
      });
    },
    /** calls waiting for their turn (for tests and metrics) */
    get waiting() {
      return waiting.length;
    },
  };
}

export type OAuthQueue = ReturnType<typeof createOAuthQueue>;
