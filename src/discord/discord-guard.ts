import type { Logger } from '../logger';
import { outboundFetch, type OutboundFetch } from '../outbound-http';
import { createBotTokenHealth, type BotTokenHealth } from './bot-token-health';
import { createInvalidRequests, type InvalidRequests } from './invalid-requests';
import { createRequestBudgetGate, type RequestBudgetGate } from './request-budget-gate';

/**
 * What keeps the process's Discord traffic safe, one per process: the count of invalid
 * answers (Discord bans an address past 10,000 in 10 minutes), the budget gate every
 * Discord call passes, and whether Discord accepts the bot token.
 */
export interface DiscordGuard {
  invalid: InvalidRequests;
  gate: RequestBudgetGate;
  token: BotTokenHealth;
}

export function createDiscordGuard(config: {
  apiBase: string;
  botToken: string;
  logger: Logger;
  fetch?: OutboundFetch;
  /** tests: a smaller limit and window */
  invalidLimit?: { limit: number; windowMs: number };
  /** tests: shorter waits between token probes */
  probeDelaysMs?: readonly number[];
}): DiscordGuard {
  const invalid = createInvalidRequests(config.invalidLimit ?? {});
  const doFetch = config.fetch ?? outboundFetch;
  const token = createBotTokenHealth({
    logger: config.logger,
    delaysMs: config.probeDelaysMs,
    // the cheapest bot call there is; its own 401 counts toward the limit like any other
    probe: async () => {
      const response = await doFetch(`${config.apiBase.replace(/\/$/, '')}/v10/users/@me`, {
        method: 'GET',
        headers: { Authorization: `Bot ${config.botToken}` },
        signal: AbortSignal.timeout(10_000),
      });
      await response.text().catch(() => '');
      invalid.record('users-me', response.status, response.headers.get('x-ratelimit-scope'));
      return response.status;
    },
  });
  return { invalid, gate: createRequestBudgetGate(invalid), token };
}
