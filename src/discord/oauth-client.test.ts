import { DiscordAPIError, REST } from '@discordjs/rest';
import { Routes, type RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10';
import { createDiscordOAuth, GrantRevokedError } from './oauth-client';
import type { OutboundFetch } from '../outbound-http';
import { createDiscordEmulator } from '../discord-emulator';

/** A Discord that answers the token endpoint with the given status and rate-limit scope. */
function discordAnswering(status: number, scope: string | null, log: string[]): OutboundFetch {
  return async (url) => {
    log.push(`fetch ${new URL(url).pathname}`);
    const headers: Record<string, string> =
      status === 429 ? { 'retry-after': '600', ...(scope ? { 'x-ratelimit-scope': scope } : {}) } : {};
    const body =
      status === 429 ? { message: 'You are being rate limited.', retry_after: 600, global: false, code: 0 } : { error: 'invalid_grant' };
    return {
      ok: false,
      status,
      headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
      json: async () => body,
      text: async () => JSON.stringify(body),
    };
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

describe('the OAuth client against the emulator', () => {
  const REDIRECT = 'http://127.0.0.1:3000/oauth/callback';

  it('revokes a token (HTTP Basic, token_type_hint): it then reads nothing and joins nobody; revoking it again is fine', async () => {
    const emulator = await createDiscordEmulator({ rateLimits: false, redirectUris: [REDIRECT] });
    try {
      const { clientId, clientSecret } = emulator.application;
      const userId = emulator.createUser({ username: 'oauth-user' }).id;
      const token = (fields: Record<string, string>) =>
        new REST({ api: emulator.apiBase, retries: 0 }).post(Routes.oauth2TokenExchange(), {
          auth: false,
          passThroughBody: true,
          body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret, ...fields }),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        }) as Promise<RESTPostOAuth2AccessTokenResult>;
      const code = emulator.issueAuthorizationCode({ userId, clientId, redirectUri: REDIRECT, scope: 'identify guilds.join' });
      const tokens = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });

      const oauth = createDiscordOAuth({ apiBase: emulator.apiBase, authorizeBase: emulator.url, clientId, clientSecret });
      await oauth.revokeToken(tokens.access_token);
      await oauth.revokeToken(tokens.access_token);
      const me = await fetch(`${emulator.apiBase}/v10/users/@me`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
      expect(me.status).toBe(401);
      const bot = new REST({ api: emulator.apiBase }).setToken(emulator.application.botToken);
      await expect(
        bot.put(Routes.guildMember(emulator.guild.id, userId), { body: { access_token: tokens.access_token } }),
      ).rejects.toBeInstanceOf(DiscordAPIError);
      expect(emulator.state.guild.members.has(userId)).toBe(false);
      // the refresh token went with it
      await expect(token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).rejects.toMatchObject({ status: 400 });
      // a wrong client secret is refused, not taken for a revocation
      const wrong = createDiscordOAuth({ apiBase: emulator.apiBase, authorizeBase: emulator.url, clientId, clientSecret: 'nope' });
      await expect(wrong.revokeToken('anything')).rejects.toThrow(/401/);
    } finally {
      await emulator.close();
    }
  });
  it('reads a grant the user removed (the emulator answers invalid_grant) as a revoked grant', async () => {
    const emulator = await createDiscordEmulator({ rateLimits: false, redirectUris: [REDIRECT] });
    try {
      const { clientId, clientSecret } = emulator.application;
      const userId = emulator.createUser({ username: 'removed-app' }).id;
      const code = emulator.issueAuthorizationCode({ userId, clientId, redirectUri: REDIRECT, scope: 'identify role_connections.write' });
      const oauth = createDiscordOAuth({ apiBase: emulator.apiBase, authorizeBase: emulator.url, clientId, clientSecret });
      const tokens = (await new REST({ api: emulator.apiBase, retries: 0 }).post(Routes.oauth2TokenExchange(), {
        auth: false,
        passThroughBody: true,
        body: new URLSearchParams({
          client_id: clientId,
          client_secret: clientSecret,
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
        }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      })) as RESTPostOAuth2AccessTokenResult;
      expect(emulator.revokeGrant(userId)).toBeGreaterThanOrEqual(1);
      await expect(oauth.refreshTokens(tokens.refresh_token)).rejects.toBeInstanceOf(GrantRevokedError);
    } finally {
      await emulator.close();
    }
  });
});
