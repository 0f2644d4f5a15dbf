export type FaultMode = 'none' | 'error500' | 'hang';

export interface FaultOptions {
  /** Only requests whose path (after `/api/v10`) matches; all REST requests when omitted. */
  routes?: RegExp;
  /** Only the next N matching requests, then back to normal. */
  count?: number;
}

/** Switchable REST failures for reliability tests: 500s, or requests that never answer. */
export class FaultInjector {
  private mode: FaultMode = 'none';
  private routes: RegExp | undefined;
  private remaining: number | undefined;
  /** How many requests each fault has hit so far. */
  readonly injected = { error500: 0, hang: 0 };

  set(mode: FaultMode, options: FaultOptions = {}): void {
    this.mode = mode;
    this.routes = options.routes;
    this.remaining = options.count;
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
