export type FaultMode = 'none' | 'error500' | 'hang' | 'rate429';

export interface FaultOptions {
  /** Only requests whose path (after `/api/v10`) matches; all REST requests when omitted. */
  routes?: RegExp;
  /** Only the next N matching requests, then back to normal. */
  count?: number;
  /** `rate429` only: the Retry-After (seconds, may be fractional) each 429 carries; 1 by default. */
  retryAfterSeconds?: number;
}

/** Switchable REST failures for reliability tests: 500s, requests that never answer, or 429 bursts with a Retry-After. */
export class FaultInjector {
  private mode: FaultMode = 'none';
  private routes: RegExp | undefined;
  private remaining: number | undefined;
  private retryAfter = 1;
  /** How many requests each fault has hit so far. */
  readonly injected = { error500: 0, hang: 0, rate429: 0 };

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
