import crypto from 'node:crypto';
import type {
  RESTGetAPICurrentUserResult,
  RESTPostOAuth2AccessTokenResult,
  RESTPutAPICurrentUserApplicationRoleConnectionJSONBody,
} from 'discord-api-types/v10';
import { snowflakeDate } from '../shared/discord-snowflake';
import { discordUserAgent } from '../discord-user-agent';
import { outboundFetch, type OutboundFetch, type OutboundResponse } from '../outbound-http';
import { createOAuthQueue, OAuthQueueTimeout, pauseJitterMs, type OAuthQueue } from './oauth-queue';

/** The verification sign-in: who the visitor is, and the right to add them to the server. */
export const VERIFY_SCOPES = ['identify', 'guilds.join'] as const;
/** The appeal sign-in: only who the visitor is (it adds nobody anywhere). */
export const APPEAL_SCOPES = ['identify'] as const;
/** The Linked Roles sign-in (from Discord's role menu): who the visitor is, and the right to write their role connection. */
export const LINKED_ROLES_SCOPES = ['identify', 'role_connections.write'] as const;
/** The verification sign-in while Linked Roles are on: also the right to write the member's role connection. */
export const VERIFY_WITH_LINKED_ROLES_SCOPES = [...VERIFY_SCOPES, 'role_connections.write'] as const;
export type OAuthScopes = typeof VERIFY_SCOPES | typeof APPEAL_SCOPES | typeof LINKED_ROLES_SCOPES | typeof VERIFY_WITH_LINKED_ROLES_SCOPES;

/** Tokens Discord gives for a grant: the access token, the refresh token that renews it, and how long the access token lasts. */
export interface OAuthTokens {
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
  scope: string;
}

export interface DiscordIdentity {
  id: string;
  username: string;
  globalName: string | null;
  avatarUrl: string | null;
  bot: boolean;
  createdAt: Date;
}

export interface DiscordOAuth {
  /** `scopes`: the flow's own (VERIFY_SCOPES unless said otherwise) */
  authorizeUrl(input: { state: string; codeChallenge: string; redirectUri: string; scopes?: OAuthScopes }): string;
  /** `waitBudgetMs`: how long the call may wait its turn in the shared queue when Discord rate-limits the endpoint */
  exchangeCode(input: { code: string; codeVerifier: string; redirectUri: string; waitBudgetMs?: number }): Promise<OAuthTokens>;
  /**
   * Renews a grant's access token with its refresh token (Discord rotates both). Rejects with
   * GrantRevokedError when Discord says the grant is gone (the user removed the app: invalid_grant, 401).
   */
  refreshTokens(refreshToken: string): Promise<OAuthTokens>;
  fetchIdentity(accessToken: string): Promise<DiscordIdentity>;
  /** Revokes an access token (and its refresh token) at Discord; rejects when Discord could not be told. */
  revokeToken(accessToken: string): Promise<void>;
  /** Update Current User Application Role Connection, with the user's token (`role_connections.write`). */
  writeRoleConnection(accessToken: string, body: RESTPutAPICurrentUserApplicationRoleConnectionJSONBody): Promise<void>;
}

/** How long the code exchange waits its turn unless its caller says (the appeal callback answers inline). */
const DEFAULT_EXCHANGE_WAIT_MS = 5_000;
/** How long a revocation may wait its turn behind sign-ins before it is given up (and logged). */
const REVOKE_WAIT_MS = 10 * 60_000;

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

/** Longest Retry-After a call with the visitor's own token waits out before giving up (the visitor is waiting). */
const MAX_RETRY_WAIT_MS = 3000;

/** A non-2xx answer from Discord, with its status. */
export class DiscordHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** on a 429, the wait Discord asked for */
    readonly retryAfterMs: number | null = null,
    /** an OAuth2 error body's `error` (RFC 6749 §5.2: 'invalid_grant', …) */
    readonly oauthError: string | null = null,
  ) {
    super(message);
    this.name = 'DiscordHttpError';
  }
}

/** Discord no longer honours a user's grant (they removed the app's access, or it was revoked): its tokens are useless. */
export class GrantRevokedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GrantRevokedError';
  }
}

/** Whether Discord's answer says a grant (or the token used) is gone: invalid_grant on the token endpoint, or 401. */
export function isRevokedGrant(error: unknown): boolean {
  return error instanceof DiscordHttpError && (error.status === 401 || (error.status === 400 && error.oauthError === 'invalid_grant'));
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
 * no bot token, so they count toward no bot limit.
 *
 * The calls made with the app's own credentials (the code exchange, the revocation) share
 * one limit for the whole app, so they go through one queue (oauth-queue.ts), which follows
 * Discord's rate-limit headers: a crowd of sign-ins waits its turn there instead of drawing a
 * 429 each. The calls made with a visitor's token (/users/@me) are limited per token: they
 * run in parallel, a 429 waited out once when Discord asks for a short pause. A 5xx or
 * network error is retried once. Every answer passes through `request`, the one place that
 * sees them (`onResponse` reports each one to the invalid-request count, and `beforeRequest`
 * holds it while that count's budget says wait).
 */
export function createDiscordOAuth(config: {
  apiBase: string;
  authorizeBase: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
  fetch?: OutboundFetch;
  /** the app's queue (one per process: all its sign-ins share Discord's limit) */
  queue?: OAuthQueue;
  /** every answer Discord gave: its status, path (e.g. '/oauth2/token') and rate-limit scope, for the invalid-request count */
  onResponse?: (status: number, path: string, scope: string | null) => void;
  /** waits until the invalid-request budget lets a call go (request-budget-gate.ts) */
  beforeRequest?: () => Promise<void>;
}): DiscordOAuth {
  const base = `${config.apiBase.replace(/\/$/, '')}/v10`;
  const doFetch = config.fetch ?? outboundFetch;
  const timeoutMs = config.timeoutMs ?? 10_000;
  const queue = config.queue ?? createOAuthQueue();

  type Init = { method: 'GET' | 'POST' | 'PUT'; headers: Record<string, string>; body?: string };
  /** The one place an OAuth request is sent and its answer seen. */
  async function request(path: string, init: Init): Promise<OutboundResponse> {
    await config.beforeRequest?.();
    // every call to Discord names the installation (Discord may block requests without a User-Agent)
    const response = await doFetch(`${base}${path}`, {
      ...init,
      headers: { ...init.headers, 'User-Agent': discordUserAgent() },
      signal: AbortSignal.timeout(timeoutMs),
    });
    config.onResponse?.(response.status, path, response.headers.get('x-ratelimit-scope'));
    return response;
  }

  /**
   * `queued`: through the app's queue, waiting at most `waitMs` for its turn (a 429 is waited
   * out there); otherwise at once, a short Retry-After waited out once.
   */
  async function call<T>(path: string, init: Init, options: { queued?: { waitMs: number; background?: boolean } } = {}): Promise<T> {
    // one deadline for the call, its second try included
    const deadline = performance.now() + (options.queued?.waitMs ?? 0);
    for (let attempt = 1; ; attempt++) {
      let response: OutboundResponse;
      try {
        response = options.queued
          ? await queue.run(`${init.method} ${path}`, () => request(path, init), {
              deadlineMs: Math.max(0, deadline - performance.now()),
              background: options.queued.background,
            })
          : await request(path, init);
      } catch (error) {
        if (error instanceof OAuthQueueTimeout)
          throw new DiscordHttpError(429, `${init.method} ${path}: rate limited (${error.message})`, error.retryAfterMs);
        if (attempt < 2) continue;
        const name = (error as { name?: string }).name;
        throw new Error(
          name === 'TimeoutError' || name === 'AbortError'
            ? `no answer from Discord within ${timeoutMs} ms`
            : 'Discord could not be reached',
        );
      }
      if (response.ok) {
        // a revocation's answer may be empty
        const body = await response.text();
        return (body ? JSON.parse(body) : null) as T;
      }
      const text = await response.text().catch(() => '');
      const retryAfterMs = response.status === 429 ? retryAfterOf(response, text) : null;
      if (attempt < 2 && !options.queued && retryAfterMs !== null && retryAfterMs <= MAX_RETRY_WAIT_MS) {
        // with jitter: visitors limited at the same moment do not all come back in the same one
        await new Promise((resolve) => setTimeout(resolve, retryAfterMs + pauseJitterMs(retryAfterMs)));
        continue;
      }
      if (attempt < 2 && response.status >= 500) continue;
      throw new DiscordHttpError(
        response.status,
        `${init.method} ${path}: HTTP ${response.status}${describeError(text)}`,
        retryAfterMs,
        oauthErrorOf(text),
      );
    }
  }

  return {
    authorizeUrl({ state, codeChallenge, redirectUri, scopes = VERIFY_SCOPES }) {
      const url = new URL(`${config.authorizeBase.replace(/\/$/, '')}/oauth2/authorize`);
      url.search = new URLSearchParams({
        client_id: config.clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: scopes.join(' '),
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
        prompt: 'none',
      }).toString();
      return url.toString();
    },

    async exchangeCode({ code, codeVerifier, redirectUri, waitBudgetMs = DEFAULT_EXCHANGE_WAIT_MS }) {
      try {
        const body = new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          code_verifier: codeVerifier,
          client_id: config.clientId,
          client_secret: config.clientSecret,
        });
        const result = await call<RESTPostOAuth2AccessTokenResult>(
          '/oauth2/token',
          {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
            body: body.toString(),
          },
          { queued: { waitMs: waitBudgetMs } },
        );
        return tokensOf(result);
      } catch (error) {
        // a 429 here means the queue could not give it a turn within its budget: handed back with the wait left
        const status = error instanceof DiscordHttpError ? error.status : null;
        const retryAfterMs = error instanceof DiscordHttpError ? error.retryAfterMs : null;
        throw new OAuthExchangeError(
          `Discord refused the authorization code: ${error instanceof Error ? error.message : String(error)}`,
          status,
          retryAfterMs,
        );
      }
    },

    async refreshTokens(refreshToken) {
      const body = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: config.clientId,
        client_secret: config.clientSecret,
      });
      try {
        const result = await call<RESTPostOAuth2AccessTokenResult>(
          '/oauth2/token',
          {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
            body: body.toString(),
          },
          { queued: { waitMs: REVOKE_WAIT_MS, background: true } },
        );
        return tokensOf(result);
      } catch (error) {
        if (isRevokedGrant(error)) throw new GrantRevokedError(`Discord refused the refresh token: ${(error as Error).message}`);
        throw error;
      }
    },

    async fetchIdentity(accessToken) {
      const user = await call<RESTGetAPICurrentUserResult>('/users/@me', {
        method: 'GET',
        headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' },
      });
      return {
        id: user.id,
        username: user.username,
        globalName: user.global_name ?? null,
        avatarUrl: avatarUrlOf(user),
        bot: Boolean(user.bot),
        createdAt: snowflakeDate(user.id),
      };
    },

    async writeRoleConnection(accessToken, body) {
      // the application's id is its client id
      await call<unknown>(`/users/@me/applications/${encodeURIComponent(config.clientId)}/role-connection`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      });
    },

    async revokeToken(accessToken) {
      // Discord's Token Revocation (RFC 7009): the client authenticates with HTTP Basic, as its docs show
      const basic = Buffer.from(`${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret)}`).toString('base64');
      await call<unknown>(
        '/oauth2/token/revoke',
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', Authorization: `Basic ${basic}` },
          body: new URLSearchParams({ token: accessToken, token_type_hint: 'access_token' }).toString(),
        },
        { queued: { waitMs: REVOKE_WAIT_MS, background: true } },
      );
    },
  };
}

function tokensOf(result: RESTPostOAuth2AccessTokenResult): OAuthTokens {
  return { accessToken: result.access_token, refreshToken: result.refresh_token, expiresInSeconds: result.expires_in, scope: result.scope };
}

/** The `error` of an OAuth2 error body, when the body is one. */
function oauthErrorOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === 'string' ? body.error.slice(0, 40) : null;
  } catch {
    return null;
  }
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
