import { createDiscordOAuth } from './oauth-client';
import type { OutboundFetch } from '../outbound-http';

/** A Discord that answers the token endpoint with the given status and rate-limit scope. */
function discordAnswering(status: number, scope: string | null, log: string[]): OutboundFetch {
  return async (url) => {
    log.push(`fetch ${new URL(url).pathname}`);
    const headers: Record<string, string> = status === 429 ? { 'retry-after': '600', ...(scope ? { 'x-ratelimit-scope': scope } : {}) } : {};
    const body = status === 429 ? { message: 'You are being rate limited.', retry_after: 600, global: false, code: 0 } : { error: 'invalid_grant' };
    return { ok: false, status, headers: { get: (name: string) => headers[name.toLowerCase()] ?? null }, json: async () => body, text: async () => JSON.stringify(body) };
  };
}

describe('the OAuth client and the invalid-request budget', () => {
  it('waits for the budget before each call and reports each answer with its path and scope', async () => {
    const log: string[] = [];
    const oauth = createDiscordOAuth({
      apiBase: 'https://discord.test/api',
      authorizeBase: 'https://discord.test',
      clientId: '1',
      clientSecret: 's',
      fetch: discordAnswering(429, 'user', log),
      beforeRequest: async () => void log.push('budget'),
      onResponse: (status, path, scope) => void log.push(`answer ${status} ${path} ${scope}`),
    });
    await expect(oauth.exchangeCode({ code: 'c', codeVerifier: 'v', redirectUri: 'https://gk.test/oauth/callback' })).rejects.toThrow();
    expect(log.slice(0, 3)).toEqual(['budget', 'fetch /api/v10/oauth2/token', 'answer 429 /oauth2/token user']);
  });
});
