import { REST } from '@discordjs/rest';

/**
 * Discord's global limit is 50 requests/s per bot, over all of its clients. The bot has two:
 * this one (the outbox, command registration, staff lookups) and discord.js's own (the
 * gateway client). Together they stay at 45/s: a client that paces itself at exactly 50/s
 * over its own one-second windows can still put a few more into one of Discord's, since the
 * windows do not line up (measured: 1–2 global 429s in ~6,300 calls of the bench's scaled
 * P4 raid at 50/s).
 */
export const GLOBAL_REQUESTS_PER_SECOND = { rest: 40, gatewayClient: 5 } as const;

/** One bot-authenticated REST client (its queue keeps us under Discord's rate limits). */
export function createBotRest(config: { apiBase: string; botToken: string; timeoutMs?: number }): REST {
  return new REST({ api: config.apiBase, version: '10', timeout: config.timeoutMs ?? 15_000, retries: 1, globalRequestsPerSecond: GLOBAL_REQUESTS_PER_SECOND.rest }).setToken(config.botToken);
}
