import crypto from 'node:crypto';
import type { RESTGetAPICurrentUserResult, RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10';
import { snowflakeDate } from '../shared/discord-snowflake';
import { discordUserAgent } from '../discord-user-agent';
import { outboundFetch, type OutboundFetch, type OutboundResponse } from '../outbound-http';

export const OAUTH_SCOPES = ['identify', 'guilds.join'] as const;

export interface DiscordIdentity {
  id: string;
  username: string;
  globalName: string | null;
  avatarUrl: string | null;
  bot: boolean;
  createdAt: Date;
}

export interface DiscordOAuth {
  authorizeUrl(input: { state: string; codeChallenge: string; redirectUri: string }): string;
  exchangeCode(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<{ accessToken: string; scope: string }>;
  fetchIdentity(accessToken: string): Promise<DiscordIdentity>;
}

export class OAuthExchangeError extends Error {
  constructor(
    message: string,
    /** Discord's HTTP status, null when it could not be reached */
    readonly status: number | null = null,
    /** on a 429, how long Discord asked us to wait before trying the same code again */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'OAuthExchangeError';
  }

  /** Rate-limited, unreachable or failing on Discord's side: the same code may still work later. */
  get transient(): boolean {
    return this.status === null || this.status === 429 || this.status >= 500;
  }
}


export function avatarUrlOf(user: { id: string; avatar: string | null }, cdnBase = 'https://cdn.discordapp.com'): string | null {
  if (!user.avatar) return null;
  const ext = user.avatar.startsWith('a_') ? 'gif' : 'png';
  return `${cdnBase}/avatars/${user.id}/${user.avatar}.${ext}?size=128`;
}

/** PKCE S256: a random verifier and its challenge. */
export function createPkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(48).toString('base64url');
  const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

/** Longest Retry-After the callback waits out before giving up (the visitor is waiting). */
const MAX_RETRY_WAIT_MS = 3000;

/** A non-2xx answer from Discord, with its status. */
export class DiscordHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** on a 429, the wait Discord asked for */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'DiscordHttpError';
  }
}

/**
 * Discord OAuth2 with plain HTTP requests (`outboundFetch`) on the configured API base, so the same code talks to
 * discord.com or to the emulator (discord-api-types hard-codes the token URL to
 * discord.com, so it is never used).
 *
 * Not @discordjs/rest: its queue runs the requests of one route one at a time and holds
 * every instance to the bot's 50 requests/s global budget, which made every visitor's
 * token exchange and /users/@me wait for everyone else's (measured: ~25 verifications/s
 * at most, whatever the machine; at Discord's real latency far fewer). These calls carry
 * no bot token, so they count toward no bot limit: they run in parallel; a 429 is waited
 * out once when Discord asks for a short pause (except on the token exchange, whose caller
 * waits within its own budget), a 5xx or network error retried once.
 */
export function createDiscordOAuth(config: { apiBase: string; authorizeBase: string; clientId: string; clientSecret: string; timeoutMs?: number; fetch?: OutboundFetch }): DiscordOAuth {
  const base = `${config.apiBase.replace(/\/$/, '')}/v10`;
  const doFetch = config.fetch ?? outboundFetch;
  const timeoutMs = config.timeoutMs ?? 10_000;

  async function call<T>(path: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }, options: { waitOn429: boolean } = { waitOn429: true }): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let response: OutboundResponse;
      try {
        // every call to Discord names the product (Discord may block requests without a User-Agent)
        response = await doFetch(`${base}${path}`, { ...init, headers: { ...init.headers, 'User-Agent': discordUserAgent() }, signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        if (attempt < 2) continue;
        const name = (error as { name?: string }).name;
        throw new Error(name === 'TimeoutError' || name === 'AbortError' ? `no answer from Discord within ${timeoutMs} ms` : 'Discord could not be reached');
      }
      if (response.ok) return (await response.json()) as T;
      const text = await response.text().catch(() => '');
      const retryAfterMs = response.status === 429 ? retryAfterOf(response, text) : null;
      if (attempt < 2 && options.waitOn429 && retryAfterMs !== null && retryAfterMs <= MAX_RETRY_WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, retryAfterMs));
        continue;
      }
      if (attempt < 2 && response.status >= 500) continue;
      throw new DiscordHttpError(response.status, `${init.method} ${path}: HTTP ${response.status}${describeError(text)}`, retryAfterMs);
    }
  }

  return {
    authorizeUrl({ state, codeChallenge, redirectUri }) {
      const url = new URL(`${config.authorizeBase.replace(/\/$/, '')}/oauth2/authorize`);
      url.search = new URLSearchParams({
        client_id: config.clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: OAUTH_SCOPES.join(' '),
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
        prompt: 'none',
      }).toString();
      return url.toString();
    },

    async exchangeCode({ code, codeVerifier, redirectUri }) {
      try {
        const body = new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          code_verifier: codeVerifier,
          client_id: config.clientId,
          client_secret: config.clientSecret,
        });
        const result = await call<RESTPostOAuth2AccessTokenResult>('/oauth2/token', {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
          body: body.toString(),
        }, { waitOn429: false });
        return { accessToken: result.access_token, scope: result.scope };
      } catch (error) {
        // a 429 is handed back with its Retry-After: the sign-in flow owns the waiting budget
        const status = error instanceof DiscordHttpError ? error.status : null;
        const retryAfterMs = error instanceof DiscordHttpError ? error.retryAfterMs : null;
        throw new OAuthExchangeError(`Discord refused the authorization code: ${error instanceof Error ? error.message : String(error)}`, status, retryAfterMs);
      }
    },

    async fetchIdentity(accessToken) {
      const user = await call<RESTGetAPICurrentUserResult>('/users/@me', { method: 'GET', headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' } });
      return {
        id: user.id,
        username: user.username,
        globalName: user.global_name ?? null,
        avatarUrl: avatarUrlOf(user),
        bot: Boolean(user.bot),
        createdAt: snowflakeDate(user.id),
      };
    },
  };
}

/** Discord says how long to wait in Retry-After (seconds) or in the body's retry_after (seconds, fractional). */
function retryAfterOf(response: OutboundResponse, text: string): number | null {
  try {
    const body = JSON.parse(text) as { retry_after?: unknown };
    if (typeof body.retry_after === 'number' && Number.isFinite(body.retry_after)) return Math.max(0, Math.ceil(body.retry_after * 1000));
  } catch {
    // not JSON: the header decides
  }
  const header = Number(response.headers.get('retry-after'));
  return Number.isFinite(header) && header >= 0 ? header * 1000 : null;
}

/** The error fields of a Discord error body (never the whole body: it could echo input). */
function describeError(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const what = typeof body.error === 'string' ? body.error : typeof body.message === 'string' ? body.message : null;
    return what ? ` (${what.slice(0, 80)})` : '';
  } catch {
    return '';
  }
}
