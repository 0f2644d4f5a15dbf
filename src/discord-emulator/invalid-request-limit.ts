/**
 * Discord's invalid request limit ("Rate Limits" → "Invalid Request Limit"): an IP address
 * whose requests draw 10,000 answers of 401, 403 or 429 (429s of scope `shared` aside)
 * within 10 minutes is blocked by Cloudflare for a while: every request, bot or not, is
 * answered 429 until the block ends. Discord does not publish the block's length; an hour
 * is what bots report.
 */
export interface InvalidRequestLimitConfig {
  limit: number;
  windowMs: number;
  banMs: number;
}

export const DISCORD_INVALID_REQUEST_BAN: InvalidRequestLimitConfig = { limit: 10_000, windowMs: 10 * 60_000, banMs: 60 * 60_000 };

/** `true` (default) = Discord's numbers, `false` = no limit, an object = some replaced (tests scale it down). */
export type InvalidRequestLimitOption = boolean | Partial<InvalidRequestLimitConfig>;

export function resolveInvalidRequestLimit(option: InvalidRequestLimitOption | undefined): InvalidRequestLimitConfig | null {
  if (option === false) return null;
  if (option === undefined || option === true) return DISCORD_INVALID_REQUEST_BAN;
  return { ...DISCORD_INVALID_REQUEST_BAN, ...option };
}

/** Invalid answers per client address over a sliding window, and the addresses blocked. */
export class InvalidRequestLimit {
  private readonly answers = new Map<string, number[]>();
  private readonly bans = new Map<string, number>();
  /** blocks imposed so far (tests assert none) */
  bansImposed = 0;

  constructor(readonly config: InvalidRequestLimitConfig) {}

  /** Milliseconds left of this address's block, 0 when it is not blocked. */
  blockedFor(client: string, now: number): number {
    const until = this.bans.get(client);
    if (until === undefined) return 0;
    if (now >= until) {
      this.bans.delete(client);
      return 0;
    }
    return until - now;
  }

  /** Counts one answer; blocks the address when it reaches the limit. */
  record(client: string, status: number, scope: string | undefined, now: number): void {
    if (!(status === 401 || status === 403 || (status === 429 && scope !== 'shared'))) return;
    const times = this.recent(client, now);
    times.push(now);
    if (times.length >= this.config.limit) {
      this.bans.set(client, now + this.config.banMs);
      this.bansImposed++;
      this.answers.delete(client);
    }
  }

  /** Invalid answers of this address in the window. */
  count(client: string, now: number): number {
    return this.recent(client, now).length;
  }

  /** The most any address has in the window now. */
  highest(now: number): number {
    let most = 0;
    for (const client of this.answers.keys()) most = Math.max(most, this.count(client, now));
    return most;
  }

  private recent(client: string, now: number): number[] {
    let times = this.answers.get(client);
    if (!times) this.answers.set(client, (times = []));
    const from = now - this.config.windowMs;
    let drop = 0;
    while (drop < times.length && times[drop]! <= from) drop++;
    if (drop > 0) times.splice(0, drop);
    return times;
  }
}
