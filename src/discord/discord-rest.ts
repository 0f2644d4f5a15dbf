import {
  DefaultUserAgentAppendix,
  REST,
  RESTEvents,
  type APIRequest,
  type InternalRequest,
  type RESTOptions,
  type ResponseLike,
} from '@discordjs/rest';
import type { Client } from 'discord.js';
import { discordUserAgent } from '../discord-user-agent';
import { BotTokenRejectedError } from './bot-token-health';
import type { DiscordGuard } from './discord-guard';
import { bucketRoute, createFirstCallGate, type FirstCallGate } from './first-call-gate';
import { routeFamily } from './invalid-requests';
import { isInteractionRoute } from './bot/interaction-rest';

/**
 * Discord's global limit is 50 requests/s per bot, over all of its clients. The bot has two:
 * this one (the outbox, command registration, staff lookups) and discord.js's own (the
 * gateway client). Together they stay at 45/s: a client that paces itself at exactly 50/s
 * over its own one-second windows can still put a few more into one of Discord's, since the
 * windows do not line up (measured: 1–2 global 429s in ~6,300 calls of the bench's scaled
 * P4 raid at 50/s).
 */
export const GLOBAL_REQUESTS_PER_SECOND = { rest: 40, gatewayClient: 5 } as const;

/** Log messages can wait out a tight invalid-request budget; everything else a member waits on cannot. */
function isEssential(request: InternalRequest): boolean {
  return !(request.method === 'POST' && routeFamily(request.fullRoute) === 'messages');
}

/**
 * What the bot's REST clients append to @discordjs/rest's `DiscordBot (https://discord.js.org, x.y.z)`:
 * the product's own `DiscordBot (url, version)`, then the library's Node.js appendix.
 */
export const restUserAgentAppendix = () => `${discordUserAgent()} ${DefaultUserAgentAppendix}`.trim();

/**
 * @discordjs/rest with three changes: the first call on a route whose bucket it has not learnt
 * goes alone (`first-call-gate.ts` says why); with a guard, every call first passes
 * the invalid-request budget gate and fails at once, unsent, while Discord rejects the bot
 * token; interaction routes (the reply to an interaction, its edit) go through a client of
 * their own with no global cap (`bot/interaction-rest.ts` says why). Everything else, the
 * queues per bucket included, is the library's.
 */
export class BotRest extends REST {
  readonly #gate: FirstCallGate;
  readonly #guard: DiscordGuard | undefined;
  /** interaction routes' own client (interaction-rest.ts): no global cap, their answers reported as this client's */
  readonly #interactions: REST;

  constructor(options: Partial<RESTOptions> = {}, guard?: DiscordGuard) {
    super(options);
    // relearn well before the client forgets a bucket left idle for its hashLifetime
    this.#gate = createFirstCallGate({ relearnAfterMs: this.options.hashLifetime / 2 });
    this.#guard = guard;
    this.#interactions = new REST({ ...options, globalRequestsPerSecond: Number.POSITIVE_INFINITY });
    this.#interactions.on(RESTEvents.Response, (request, response) => this.emit(RESTEvents.Response, request, response));
  }

  override clearHashSweeper(): void {
    super.clearHashSweeper();
    this.#interactions.clearHashSweeper();
  }

  override clearHandlerSweeper(): void {
    super.clearHandlerSweeper();
    this.#interactions.clearHandlerSweeper();
  }

  override async queueRequest(request: InternalRequest): Promise<ResponseLike> {
    // sent with the interaction's token: not the bot's global budget, nor its token's state
    if (isInteractionRoute(request)) return this.#interactions.queueRequest(request);
    const guard = this.#guard;
    if (guard) {
      if (guard.token.rejected) throw new BotTokenRejectedError();
      await guard.gate.pass(isEssential(request));
      if (guard.token.rejected) throw new BotTokenRejectedError();
    }
    const route = bucketRoute(request.fullRoute);
    this.#assumeSiblingBucket(request.method, route);
    return this.#gate.run(`${request.method} ${route}`, () => super.queueRequest(request));
  }

  /**
   * A route not called yet whose path another method has learnt (Remove Guild Member Role
   * after Add Guild Member Role) is first queued in that method's bucket, until its own first
   * answer names its bucket (the client then moves it there). Discord keeps both role routes
   * in one bucket: in a queue of its own, the first Remove knew nothing of what the Adds had
   * spent and met a 429 when a raid's role changes started. A wrong guess only paces that
   * first call by another bucket.
   */
  #assumeSiblingBucket(method: string, route: string): void {
    if (this.hashes.has(`${method}:${route}`)) return;
    for (const other of ['PUT', 'DELETE', 'PATCH', 'POST', 'GET']) {
      const known = other === method ? undefined : this.hashes.get(`${other}:${route}`);
      if (known) {
        this.hashes.set(`${method}:${route}`, { value: known.value, lastAccess: Date.now() });
        return;
      }
    }
  }
}

/**
 * Watches a bot REST client's answers: each is counted toward Discord's invalid request
 * limit by route family, a 401 to the bot token marks the token rejected, and the token is
 * set again when a probe finds it works (the library drops it on a 401). Returns what undoes it.
 */
export function watchBotRest(rest: REST, guard: DiscordGuard, botToken: string): () => void {
  const onResponse = (request: APIRequest, response: ResponseLike) => {
    guard.invalid.record(routeFamily(request.path), response.status, response.headers.get('x-ratelimit-scope'));
    if (response.status === 401 && request.data.auth !== false) guard.token.reject();
  };
  rest.on('response', onResponse);
  const stopRestoring = guard.token.onRestored(() => rest.setToken(botToken));
  return () => {
    rest.off('response', onResponse);
    stopRestoring();
  };
}

/**
 * One bot-authenticated REST client (its queue keeps us under Discord's rate limits). With a
 * guard, every call passes the budget gate and every answer is watched (`watchBotRest`).
 */
export function createBotRest(config: { apiBase: string; botToken: string; timeoutMs?: number; guard?: DiscordGuard }): REST {
  const rest = new BotRest(
    {
      api: config.apiBase,
      version: '10',
      timeout: config.timeoutMs ?? 15_000,
      retries: 1,
      globalRequestsPerSecond: GLOBAL_REQUESTS_PER_SECOND.rest,
      userAgentAppendix: restUserAgentAppendix(),
    },
    config.guard,
  ).setToken(config.botToken);
  if (config.guard) watchBotRest(rest, config.guard, config.botToken);
  return rest;
}

/**
 * The gateway client (discord.js's Client) builds a REST client of its own from its options,
 * for interaction replies and whatever else discord.js sends. Before login, this puts a
 * BotRest with the same options in its place: those calls pass the same budget gate and their
 * answers count in the same invalid-request count as the bot's other client. Returns what
 * stops the watching (call it when the client is dropped).
 */
export function guardGatewayClientRest(client: Pick<Client, 'rest' | 'options'>, guard: DiscordGuard, botToken: string): () => void {
  // the library's own client has started its sweep timers: stop them before it is dropped
  client.rest.clearHashSweeper();
  client.rest.clearHandlerSweeper();
  const rest = new BotRest(client.options.rest, guard);
  client.rest = rest;
  return watchBotRest(rest, guard, botToken);
}
