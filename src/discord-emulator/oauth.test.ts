import { createHash, randomBytes } from 'node:crypto';
import { DiscordAPIError, REST } from '@discordjs/rest';
import { Routes, type RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10';
import { createDiscordEmulator, type DiscordEmulator } from './index';

const REDIRECT = 'http://127.0.0.1:3000/oauth/callback';

/** A clock the test moves: the emulator reads OAuth2 expiry from it. */
function manualClock() {
  let current = Date.now();
  return { now: () => new Date(current), advance: (ms: number) => void (current += ms) };
}

function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** How our server will call the token endpoint: a REST instance, form body, no bot auth. */
function exchange(emulator: DiscordEmulator, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return new REST({ api: emulator.apiBase, retries: 0 }).post(Routes.oauth2TokenExchange(), {
    auth: false,
    passThroughBody: true,
    body: new URLSearchParams(fields),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
  }) as Promise<RESTPostOAuth2AccessTokenResult>;
}

async function oauthError(promise: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DiscordAPIError) return { status: error.status, body: error.rawError };
    throw error;
  }
  throw new Error('expected an OAuth2 error');
}

describe('Discord emulator OAuth2', () => {
  let emulator: DiscordEmulator;
  let clock: ReturnType<typeof manualClock>;
  let userId: string;

  beforeEach(async () => {
    clock = manualClock();
    emulator = await createDiscordEmulator({ rateLimits: false, clock, redirectUris: [REDIRECT] });
    userId = emulator.createUser({ username: 'oauth-user' }).id;
  });

  afterEach(async () => {
    await emulator.close();
  });

  const client = () => ({ client_id: emulator.application.clientId, client_secret: emulator.application.clientSecret });
  const code = (extra: { codeChallenge?: string } = {}) =>
    emulator.issueAuthorizationCode({
      userId,
      clientId: emulator.application.clientId,
      redirectUri: REDIRECT,
      scope: 'identify guilds.join',
      ...(extra.codeChallenge ? { codeChallenge: extra.codeChallenge, codeChallengeMethod: 'S256' as const } : {}),
    });

  it('exchanges a code with PKCE for tokens that read /users/@me', async () => {
    const { verifier, challenge } = pkcePair();
    const tokens = await exchange(emulator, {
      grant_type: 'authorization_code',
      code: code({ codeChallenge: challenge }),
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      ...client(),
    });
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 604800, scope: 'identify guilds.join' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const me = (await new REST({ api: emulator.apiBase, authPrefix: 'Bearer' }).setToken(tokens.access_token).get(Routes.user())) as {
      id: string;
    };
    expect(me.id).toBe(userId);
  });

  it('enforces PKCE when a challenge was given', async () => {
    const { challenge } = pkcePair();
    const wrong = await oauthError(
      exchange(emulator, {
        grant_type: 'authorization_code',
        code: code({ codeChallenge: challenge }),
        redirect_uri: REDIRECT,
        code_verifier: pkcePair().verifier,
        ...client(),
      }),
    );
    expect(wrong).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid "code_verifier" in request.' } });
    const missing = await oauthError(
      exchange(emulator, {
        grant_type: 'authorization_code',
        code: code({ codeChallenge: challenge }),
        redirect_uri: REDIRECT,
        ...client(),
      }),
    );
    expect(missing.status).toBe(400);
  });

  it('makes codes single-use and revokes what a replayed code minted', async () => {
    const once = code();
    const tokens = await exchange(emulator, { grant_type: 'authorization_code', code: once, redirect_uri: REDIRECT, ...client() });
    const replay = await oauthError(
      exchange(emulator, { grant_type: 'authorization_code', code: once, redirect_uri: REDIRECT, ...client() }),
    );
    expect(replay).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid "code" in request.' } });
    const me = await fetch(`${emulator.apiBase}/v10/users/@me`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(401);
  });

  it('expires codes after 10 minutes and access tokens after expires_in', async () => {
    const old = code();
    clock.advance(10 * 60 * 1000 + 1);
    expect(
      (await oauthError(exchange(emulator, { grant_type: 'authorization_code', code: old, redirect_uri: REDIRECT, ...client() }))).status,
    ).toBe(400);

    const tokens = await exchange(emulator, { grant_type: 'authorization_code', code: code(), redirect_uri: REDIRECT, ...client() });
    clock.advance(tokens.expires_in * 1000);
    const me = await fetch(`${emulator.apiBase}/v10/users/@me`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(401);
  });

  it('refuses a bad client secret with invalid_client and accepts HTTP Basic credentials', async () => {
    const bad = await oauthError(
      exchange(emulator, {
        grant_type: 'authorization_code',
        code: code(),
        redirect_uri: REDIRECT,
        client_id: emulator.application.clientId,
        client_secret: 'nope',
      }),
    );
    expect(bad).toEqual({ status: 401, body: { error: 'invalid_client' } });

    const basic = Buffer.from(`${emulator.application.clientId}:${emulator.application.clientSecret}`).toString('base64');
    const tokens = await exchange(
      emulator,
      { grant_type: 'authorization_code', code: code(), redirect_uri: REDIRECT },
      { Authorization: `Basic ${basic}` },
    );
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  it('checks redirect_uri and grant_type', async () => {
    const mismatch = await oauthError(
      exchange(emulator, { grant_type: 'authorization_code', code: code(), redirect_uri: 'http://evil.example/cb', ...client() }),
    );
    expect(mismatch.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' });
    expect((await oauthError(exchange(emulator, { grant_type: 'password', ...client() }))).body).toEqual({
      error: 'unsupported_grant_type',
    });
    expect(() =>
      emulator.issueAuthorizationCode({
        userId,
        clientId: emulator.application.clientId,
        redirectUri: 'http://evil.example/cb',
        scope: 'identify',
      }),
    ).toThrow(/redirect_uri/);
  });

  it('refreshes tokens, invalidating the old pair', async () => {
    const first = await exchange(emulator, { grant_type: 'authorization_code', code: code(), redirect_uri: REDIRECT, ...client() });
    const second = await exchange(emulator, { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...client() });
    expect(second.access_token).not.toBe(first.access_token);
    expect((await fetch(`${emulator.apiBase}/users/@me`, { headers: { Authorization: `Bearer ${first.access_token}` } })).status).toBe(401);
    expect((await fetch(`${emulator.apiBase}/users/@me`, { headers: { Authorization: `Bearer ${second.access_token}` } })).status).toBe(
      200,
    );
    expect(
      (await oauthError(exchange(emulator, { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...client() }))).status,
    ).toBe(400);
    // the rotated refresh token works once, and is itself used up by its refresh
    const third = await exchange(emulator, { grant_type: 'refresh_token', refresh_token: second.refresh_token, ...client() });
    expect(
      (await oauthError(exchange(emulator, { grant_type: 'refresh_token', refresh_token: second.refresh_token, ...client() }))).status,
    ).toBe(400);
    expect(third.refresh_token).not.toBe(second.refresh_token);
    // each stored token record is its own: a refresh does not copy the old token's id into the new record
    expect(emulator.state.oauth.refreshTokens.get(third.refresh_token)?.token).toBe(third.refresh_token);
    expect(emulator.state.oauth.accessTokens.get(third.access_token)?.token).toBe(third.access_token);
  });

  it('a user who removes the app (revokeGrant): the access token answers 401, the refresh invalid_grant, as Discord does', async () => {
    const tokens = await exchange(emulator, { grant_type: 'authorization_code', code: code(), redirect_uri: REDIRECT, ...client() });
    expect(emulator.revokeGrant(userId)).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${emulator.apiBase}/users/@me`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status).toBe(
      401,
    );
    expect(await oauthError(exchange(emulator, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, ...client() }))).toEqual(
      {
        status: 400,
        body: { error: 'invalid_grant', error_description: 'Invalid "refresh_token" in request.' },
      },
    );
  });

  describe('authorize page', () => {
    const authorizeQuery = (extra: Record<string, string> = {}) =>
      new URLSearchParams({
        client_id: emulator.application.clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'identify guilds.join',
        state: 'xyz',
        ...extra,
      });

    it('renders a form with existing users, a new-user field and the VPN checkbox', async () => {
      const response = await fetch(`${emulator.authorizeUrl}?${authorizeQuery().toString()}`);
      expect(response.status).toBe(200);
      const page = await response.text();
      expect(page).toContain('Sandbox mode');
      expect(page).toContain('oauth-user');
      expect(page).toMatch(/<label for="new-username"[^>]*>New username/);
      expect(page).toContain("I'm on a VPN");
      expect(page).toMatch(/<button[^>]*value="authorize"[^>]*>Authorize<\/button>/);
      expect(page).toContain('Join servers for you');
    });

    it('rejects bad client_id, redirect_uri and response_type with an error page', async () => {
      const bad: Array<Record<string, string>> = [{ client_id: '1' }, { redirect_uri: 'http://evil.example/' }, { response_type: 'token' }];
      for (const extra of bad) {
        const response = await fetch(`${emulator.authorizeUrl}?${authorizeQuery(extra).toString()}`);
        expect(response.status).toBe(400);
      }
    });

    it('creates a new user on a VPN and redirects with code and state', async () => {
      const { verifier, challenge } = pkcePair();
      const form = authorizeQuery({
        code_challenge: challenge,
        code_challenge_method: 'S256',
        user: 'new',
        username: 'vpn-visitor',
        vpn: '1',
        action: 'authorize',
      });
      const response = await fetch(`${emulator.url}/oauth2/authorize`, { method: 'POST', body: form, redirect: 'manual' });
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('state')).toBe('xyz');
      expect(response.headers.get('set-cookie')).toContain('gk_sandbox_user=');

      const tokens = await exchange(emulator, {
        grant_type: 'authorization_code',
        code: location.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        ...client(),
      });
      const me = (await new REST({ api: emulator.apiBase, authPrefix: 'Bearer' }).setToken(tokens.access_token).get(Routes.user())) as {
        id: string;
        username: string;
      };
      expect(me.username).toBe('vpn-visitor');
      expect(emulator.getUser(me.id)?.onVpn).toBe(true);
    });

    it('signs in as an existing user, and Cancel redirects with access_denied', async () => {
      const picked = await fetch(`${emulator.url}/api/oauth2/authorize`, {
        method: 'POST',
        body: authorizeQuery({ user: userId, action: 'authorize' }),
        redirect: 'manual',
      });
      const code = new URL(picked.headers.get('location') ?? '').searchParams.get('code') ?? '';
      expect(emulator.state.oauth.codes.get(code)?.userId).toBe(userId);
      expect(emulator.getUser(userId)?.onVpn).toBe(false);

      const cancelled = await fetch(`${emulator.url}/oauth2/authorize`, {
        method: 'POST',
        body: authorizeQuery({ action: 'cancel' }),
        redirect: 'manual',
      });
      const location = new URL(cancelled.headers.get('location') ?? '');
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect(location.searchParams.get('state')).toBe('xyz');
      expect(location.searchParams.has('code')).toBe(false);
    });

    it('re-shows the form for an invalid new username', async () => {
      const response = await fetch(`${emulator.url}/oauth2/authorize`, {
        method: 'POST',
        body: authorizeQuery({ user: 'new', username: 'A', action: 'authorize' }),
        redirect: 'manual',
      });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('role="alert"');
    });
  });
});
