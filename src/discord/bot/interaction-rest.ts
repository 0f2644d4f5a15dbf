import type { InternalRequest } from '@discordjs/rest';

/**
 * An interaction's own routes, sent with the interaction's token instead of the bot's (`auth: false`): its
 * callback (`/interactions/{id}/{token}/callback`) and its webhook (`/webhooks/{application.id}/{token}/…`:
 * the edit of the reply, follow-ups).
 *
 * Discord does not bind them to the bot's global rate limit, and each interaction's webhook is a bucket of
 * its own. Sent through the bot's REST client, the edit of a member's reply waited for the global budget
 * the bot's other calls were spending (P4: the role landed while the reply's edit trailed by seconds). So
 * BotRest (discord-rest.ts) sends them through a client of their own with no global cap: each route still
 * follows its own X-RateLimit-* headers (the library's buckets) and waits out any 429 it is sent.
 */
export function isInteractionRoute(request: Pick<InternalRequest, 'fullRoute' | 'auth'>): boolean {
  if (request.auth !== false) return false;
  return /^\/interactions\/\d+\/[^/]+\/callback$/.test(request.fullRoute) || /^\/webhooks\/\d+\/[^/]+(\/|$)/.test(request.fullRoute);
}
