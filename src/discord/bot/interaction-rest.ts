import { REST, type InternalRequest, type RESTOptions, type ResponseLike } from '@discordjs/rest';

/**
 * An interaction's own routes, sent with the interaction's token instead of the bot's (`auth: false`): its
 * callback (`/interactions/{id}/{token}/callback`) and its webhook (`/webhooks/{application.id}/{token}/…`:
 * the edit of the reply, follow-ups).
 */
export function isInteractionRoute(request: Pick<InternalRequest, 'fullRoute' | 'auth'>): boolean {
  if (request.auth !== false) return false;
  return /^\/interactions\/\d+\/[^/]+\/callback$/.test(request.fullRoute) || /^\/webhooks\/\d+\/[^/]+(\/|$)/.test(request.fullRoute);
}

/**
 * The gateway client's REST with a path of its own for interaction routes. Discord does not bind those to
 * the bot's global rate limit, and each interaction's webhook is a bucket of its own; in the shared client
 * the edit of a member's reply waited for the global budget the bot's other calls were spending (P4: the
 * role landed at 2.5 s p95, the reply's edit trailed at 7.2 s). Here they go through a second client with
 * no global cap: each route still follows its own X-RateLimit-* headers (the library's buckets) and waits
 * out any 429 it is sent. Everything else is the library's.
 */
export class GatewayClientRest extends REST {
  readonly #interactions: REST;

  constructor(options: Partial<RESTOptions> = {}) {
    super(options);
    this.#interactions = new REST({ ...options, globalRequestsPerSecond: Number.POSITIVE_INFINITY });
  }

  override queueRequest(request: InternalRequest): Promise<ResponseLike> {
    return isInteractionRoute(request) ? this.#interactions.queueRequest(request) : super.queueRequest(request);
  }

  override clearHashSweeper(): void {
    super.clearHashSweeper();
    this.#interactions.clearHashSweeper();
  }

  override clearHandlerSweeper(): void {
    super.clearHandlerSweeper();
    this.#interactions.clearHandlerSweeper();
  }
}
