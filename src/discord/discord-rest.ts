import { REST } from '@discordjs/rest';

/** One bot-authenticated REST client (its queue keeps us under Discord's rate limits). */
export function createBotRest(config: { apiBase: string; botToken: string; timeoutMs?: number }): REST {
  return new REST({ api: config.apiBase, version: '10', timeout: config.timeoutMs ?? 15_000, retries: 1 }).setToken(config.botToken);
}
