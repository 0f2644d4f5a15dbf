/**
 * - `error500`, `hang`, `rate429`: Discord or the network misbehaving (a 500, no answer, a 429 with a Retry-After);
 * - `missingPermissions`, `unknownRole`, `unknownMember`: the answers Discord gives when the server changed under
 *   the bot, with Discord's bodies (403 `{"message":"Missing Permissions","code":50013}`, 404 Unknown Role 10011,
 *   404 Unknown Member 10007), for a route whose real cause is awkward to set up in a test.
 */
export type FaultMode = 'none' | 'error500' | 'hang' | 'rate429' | 'missingPermissions' | 'unknownRole' | 'unknownMember';

export interface FaultOptions {
  /** Only requests whose path (after `/api/v10`) matches; all REST requests when omitted. */
  routes?: RegExp;
  /** Only the next N matching requests, then back to normal. */
  count?: number;
  /** `rate429` only: the Retry-After (seconds, may be fractional) each 429 carries; 1 by default. */
  retryAfterSeconds?: number;
}

/** Switchable REST failures for reliability tests: 500s, requests that never answer, 429 bursts with a Retry-After, or Discord's 403/404 answers. */
export class FaultInjector {
  private mode: FaultMode = 'none';
  private routes: RegExp | undefined;
  private remaining: number | undefined;
  private retryAfter = 1;
  /** How many requests each fault has hit so far. */
  readonly injected: Record<Exclude<FaultMode, 'none'>, number> = {
    error500: 0,
    hang: 0,
    rate429: 0,
    missingPermissions: 0,
    unknownRole: 0,
    unknownMember: 0,
  };

  set(mode: FaultMode, options: FaultOptions = {}): void {
    this.mode = mode;
    this.routes = options.routes;
    this.remaining = options.count;
    this.retryAfter = options.retryAfterSeconds ?? 1;
  }

  /** The Retry-After the current `rate429` fault answers with, in seconds. */
  get retryAfterSeconds(): number {
    return this.retryAfter;
  }

  /** The fault to apply to this request, counting it against `count`. */
  take(path: string): Exclude<FaultMode, 'none'> | null {
    if (this.mode === 'none') return null;
    if (this.routes) {
      this.routes.lastIndex = 0;
      if (!this.routes.test(path)) return null;
    }
    const mode = this.mode;
    if (this.remaining !== undefined && --this.remaining <= 0) this.set('none');
    this.injected[mode]++;
    return mode;
  }
}
