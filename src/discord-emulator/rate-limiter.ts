import { createHash } from 'node:crypto';

export interface BucketLimit {
  limit: number;
  windowMs: number;
}

/** Per-route buckets, shaped after Discord's (its major parameter — guild, channel or webhook — splits each one). */
export type BucketName =
  | 'gateway'
  | 'users'
  | 'guilds'
  | 'member-read'
  | 'member-add'
  | 'member-edit'
  | 'member-kick'
  | 'member-roles'
  | 'bans'
  | 'channels'
  | 'messages-read'
  | 'messages-write'
  | 'interaction-callback'
  | 'webhook'
  | 'commands'
  | 'oauth';

export interface RateLimitConfig {
  /** Requests per bot token across all routes (Discord: 50 per second). */
  global: BucketLimit;
  buckets: Record<BucketName, BucketLimit>;
}

/**
 * Discord publishes no per-route numbers (its rate-limit page and the OpenAPI description,
 * github.com/discord/discord-api-spec, only name the X-RateLimit-* headers every one of these
 * routes answers with), and the product never hard-codes them: @discordjs/rest and the outbox
 * follow the headers. The numbers below are what bots observe in those headers, so that the
 * emulator behaves like Discord:
 * - Add, Modify and Remove Guild Member are keyed by method (one X-RateLimit-Bucket each;
 *   discord/discord-api-docs#1135); Add and Modify: 10 per 10 s per guild, Remove (kick) and
 *   Get Guild Member: 5 per 1 s per guild (HuyaneMatsu/hata, hata/discord/http/rate_limit_groups.py,
 *   measured limits per endpoint; a 2020 header survey in the same shape gives the same numbers).
 * - Add and Remove Guild Member Role share ONE bucket, 10 per 10 s per guild (hata's
 *   GROUP_USER_ROLE_MODIFY; discord/discord-api-docs#7680 shows `x-ratelimit-limit: 10` on
 *   PUT /guilds/{id}/members/{id}/roles/{id}, 2025). It is separate from Modify Guild Member's.
 * - Create Message: 5 per 4 s per channel (hata's message_create; often quoted as 5 per 5 s).
 */
export const DISCORD_RATE_LIMITS: RateLimitConfig = {
  global: { limit: 50, windowMs: 1000 },
  buckets: {
    gateway: { limit: 2, windowMs: 5000 },
    users: { limit: 30, windowMs: 1000 },
    guilds: { limit: 10, windowMs: 1000 },
    'member-read': { limit: 5, windowMs: 1000 },
    'member-add': { limit: 10, windowMs: 10_000 },
    'member-edit': { limit: 10, windowMs: 10_000 },
    'member-kick': { limit: 5, windowMs: 1000 },
    'member-roles': { limit: 10, windowMs: 10_000 },
    bans: { limit: 5, windowMs: 5000 },
    channels: { limit: 10, windowMs: 1000 },
    'messages-read': { limit: 5, windowMs: 1000 },
    'messages-write': { limit: 5, windowMs: 4000 },
    'interaction-callback': { limit: 10, windowMs: 1000 },
    webhook: { limit: 5, windowMs: 2000 },
    commands: { limit: 5, windowMs: 20_000 },
    oauth: { limit: 50, windowMs: 1000 },
  },
};

/**
 * `true` = Discord's limits, `false` = none, or Discord's limits with some replaced. `timeScale` multiplies every route
 * bucket's window (e.g. 0.02 = the same counts, 50 times faster) so a test of hundreds of actions finishes in seconds; the
 * global limit keeps Discord's 50/s unless `global` says otherwise, since @discordjs/rest paces itself at 50/s anyway.
 * `minWindowMs` keeps a scaled window from shrinking below the timer jitter of a busy machine (a 1 s bucket ×0.02 is
 * 20 ms, the size of one event-loop stall): the count per window stays Discord's.
 */
export type RateLimitOption =
  boolean | { global?: BucketLimit; buckets?: Partial<Record<BucketName, BucketLimit>>; timeScale?: number; minWindowMs?: number };

export function resolveRateLimits(option: RateLimitOption | undefined): RateLimitConfig | null {
  if (option === false) return null;
  if (option === undefined || option === true) return DISCORD_RATE_LIMITS;
  const scale = option.timeScale ?? 1;
  const floor = Math.max(1, option.minWindowMs ?? 1);
  const scaled = (limit: BucketLimit): BucketLimit => ({
    limit: limit.limit,
    windowMs: Math.min(limit.windowMs, Math.max(floor, Math.round(limit.windowMs * scale))),
  });
  // fromEntries drops the key type; the entries are exactly DISCORD_RATE_LIMITS.buckets' keys.
  const buckets = Object.fromEntries(Object.entries(DISCORD_RATE_LIMITS.buckets).map(([name, limit]) => [name, scaled(limit)])) as Record<
    BucketName,
    BucketLimit
  >;
  return {
    global: option.global ?? DISCORD_RATE_LIMITS.global,
    buckets: { ...buckets, ...option.buckets },
  };
}

interface Window {
  resetAt: number;
  count: number;
}

/** A 429's body as the OpenAPI description's RatelimitedResponse has it: Error's code and message, retry_after (seconds) and global. */
export type RateLimitDecision =
  | { limited: false; headers: Record<string, string> }
  | {
      limited: true;
      global: boolean;
      retryAfterMs: number;
      headers: Record<string, string>;
      body: { message: string; code: number; retry_after: number; global: boolean };
    };

const seconds = (ms: number) => (Math.ceil(ms) / 1000).toFixed(3);

/** Fixed windows that start with the first request, like Discord's; answers carry the X-RateLimit-* headers @discordjs/rest reads. */
export class RateLimiter {
  private windows = new Map<string, Window>();
  private takes = 0;

  constructor(private readonly config: RateLimitConfig) {}

  /**
   * Counts one request. `caller` separates buckets per token (bot, each user's Bearer token, anonymous); `global` says whether
   * the request counts toward the bot's global limit (not for webhooks, interaction callbacks or user tokens);
   * `bucketKey` is the bucket name plus its major parameter.
   */
  take(input: { bucket: BucketName; bucketKey: string; caller: string; global: boolean; now: number }): RateLimitDecision {
    if (++this.takes % 1000 === 0) this.sweep(input.now);
    const limit = this.config.buckets[input.bucket];
    const bucket = this.current(`bucket:${input.caller}:${input.bucketKey}`, limit, input.now);
    const global = input.global ? this.current(`global:${input.caller}`, this.config.global, input.now) : null;

    if (global && global.count >= this.config.global.limit) {
      const retryAfterMs = global.resetAt - input.now;
      return {
        limited: true,
        global: true,
        retryAfterMs,
        headers: { 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global', 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) },
        body: { message: 'You are being rate limited.', code: 0, retry_after: Number(seconds(retryAfterMs)), global: true },
      };
    }
    const headers = (remaining: number): Record<string, string> => ({
      'X-RateLimit-Limit': String(limit.limit),
      'X-RateLimit-Remaining': String(remaining),
      'X-RateLimit-Reset': (bucket.resetAt / 1000).toFixed(3),
      'X-RateLimit-Reset-After': seconds(bucket.resetAt - input.now),
      'X-RateLimit-Bucket': bucketHash(input.bucket),
    });
    if (bucket.count >= limit.limit) {
      const retryAfterMs = bucket.resetAt - input.now;
      return {
        limited: true,
        global: false,
        retryAfterMs,
        headers: { ...headers(0), 'X-RateLimit-Scope': 'user', 'Retry-After': String(Math.ceil(retryAfterMs / 1000)) },
        body: { message: 'You are being rate limited.', code: 0, retry_after: Number(seconds(retryAfterMs)), global: false },
      };
    }
    bucket.count++;
    if (global) global.count++;
    return { limited: false, headers: headers(limit.limit - bucket.count) };
  }

  /** Forgets expired windows (one per webhook token and channel would otherwise pile up in a long sandbox run). */
  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (now >= window.resetAt) this.windows.delete(key);
  }

  private current(key: string, limit: BucketLimit, now: number): Window {
    let window = this.windows.get(key);
    if (!window || now >= window.resetAt) {
      window = { resetAt: now + limit.windowMs, count: 0 };
      this.windows.set(key, window);
    }
    return window;
  }
}

function bucketHash(bucket: BucketName): string {
  return createHash('sha1').update(`gatekeeper-emulator:${bucket}`).digest('hex').slice(0, 32);
}
