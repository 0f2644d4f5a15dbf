import { DiscordAPIError, RateLimitError } from '@discordjs/rest';

/**
 * One call first on a route whose rate-limit bucket the REST client has not learnt yet.
 *
 * @discordjs/rest learns a route's bucket from the X-RateLimit-Bucket header of its first
 * answer. Until then it queues the route's requests under a provisional handler; requests
 * made after the answer go to a second handler, named after the bucket, which runs in
 * parallel with the first and does not know what the first has spent. At the start of a
 * raid the outbox's workers call Add Guild Member together, and the window's eleventh call
 * met a 429 (P4, run B: 1 × 429 on member-add in 1 of 2 runs). So the first call on a
 * route goes alone; calls made meanwhile wait for its answer and then all go to the
 * bucket's own handler, which paces them from its headers.
 *
 * A route counts as learnt from its first answer (a success, or a 4xx: Discord sends the
 * headers with those too) until it has been idle for `relearnAfterMs`, shorter than the
 * time after which the client forgets an idle bucket (its `hashLifetime`, a day by
 * default). A call that got no such answer (a timeout, a refused connection, a 5xx, which
 * may come from a proxy without the headers) teaches nothing: the next waiting call goes
 * first instead.
 */
/**
 * The route as @discordjs/rest names it: snowflakes replaced by `:id` (`/guilds/:id/members/:id/roles/:id`),
 * and an interaction's or webhook's token by `:token`, so the routes known stay a handful
 * however many interactions are answered.
 */
export function bucketRoute(path: string): string {
  if (path.startsWith('/interactions/') && path.endsWith('/callback')) return '/interactions/:id/:token/callback';
  return path
    .replaceAll(/\d{17,19}/g, ':id')
    .replace(/\/reactions\/(.*)/, '/reactions/:reaction')
    .replace(/\/webhooks\/:id\/[^/?]+/, '/webhooks/:id/:token');
}

export interface FirstCallGate {
  /** runs `call` for this route (method + route with ids replaced), alone if the route is not learnt yet */
  run<T>(key: string, call: () => Promise<T>): Promise<T>;
}

interface RouteState {
  /** when a call on the route was last answered (ms since the epoch) */
  answeredAt?: number;
  /** the first call, while it is on its way */
  first?: Promise<unknown>;
}

/** Whether the error came with Discord's own answer (a 4xx or a 429, which carry the route's rate-limit headers). */
function wasAnswered(error: unknown): boolean {
  return error instanceof DiscordAPIError || error instanceof RateLimitError;
}

export function createFirstCallGate(options: { relearnAfterMs: number; now?: () => number }): FirstCallGate {
  const now = options.now ?? Date.now;
  const routes = new Map<string, RouteState>();

  const learnt = (state: RouteState) => state.answeredAt !== undefined && now() - state.answeredAt < options.relearnAfterMs;

  async function timed<T>(state: RouteState, call: () => Promise<T>): Promise<T> {
    try {
      const answer = await call();
      state.answeredAt = now();
      return answer;
    } catch (error) {
      if (wasAnswered(error)) state.answeredAt = now();
      throw error;
    }
  }

  return {
    async run(key, call) {
      let state = routes.get(key);
      if (!state) routes.set(key, (state = {}));
      // a waiting call re-checks after each first call: that one may have got no answer
      while (!learnt(state) && state.first) await state.first.catch(() => undefined);
      if (learnt(state)) return timed(state, call);
      const first = timed(state, call);
      state.first = first;
      try {
        return await first;
      } finally {
        if (state.first === first) state.first = undefined;
      }
    },
  };
}
