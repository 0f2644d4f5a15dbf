import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10';
import { oauthError } from './rest-error';

export const AUTHORIZATION_CODE_TTL_MS = 10 * 60 * 1000;
export const ACCESS_TOKEN_TTL_SECONDS = 7 * 24 * 60 * 60;

/** Scopes a sandbox visitor can grant; anything else is `invalid_scope`, as on Discord. */
export const KNOWN_SCOPES = new Set([
  'identify',
  'email',
  'guilds',
  'guilds.join',
  'guilds.members.read',
  'connections',
  'openid',
  'role_connections.write',
]);

export interface OAuthApplication {
  clientId: string;
  clientSecret: string;
  /** Registered redirect URIs; empty means any http(s) URI is accepted (sandbox convenience). */
  redirectUris: string[];
}

export interface AuthorizationCode {
  code: string;
  userId: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge?: string;
  codeChallengeMethod?: 'S256';
  expiresAt: number;
  used: boolean;
  /** Tokens minted from this code: revoked if the code is replayed (RFC 6749 §4.1.2). */
  issuedAccessTokens: string[];
}

export interface AccessTokenRecord {
  token: string;
  userId: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  refreshToken: string;
}

export interface RefreshTokenRecord {
  token: string;
  userId: string;
  clientId: string;
  scopes: string[];
  accessToken: string;
}

export interface OAuthStore {
  codes: Map<string, AuthorizationCode>;
  accessTokens: Map<string, AccessTokenRecord>;
  refreshTokens: Map<string, RefreshTokenRecord>;
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  responseType?: string;
  scope: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

const randomToken = (bytes = 24) => randomBytes(bytes).toString('base64url');

export function parseScopes(scope: string): string[] {
  return scope.split(/[\s+]+/).filter(Boolean);
}

/** Why an authorization request is refused, or null when it is acceptable. */
export function validateAuthorizationRequest(app: OAuthApplication, request: AuthorizationRequest): string | null {
  if (request.clientId !== app.clientId) return 'Unknown application (invalid client_id).';
  if (!isAllowedRedirect(app, request.redirectUri)) return 'Invalid OAuth2 redirect_uri.';
  if (request.responseType !== undefined && request.responseType !== 'code') return 'Unsupported response_type (only "code").';
  const scopes = parseScopes(request.scope);
  if (scopes.length === 0 || scopes.some((scope) => !KNOWN_SCOPES.has(scope))) return 'Invalid scope.';
  if (request.codeChallenge !== undefined && request.codeChallengeMethod !== 'S256')
    return 'Unsupported code_challenge_method (only "S256").';
  return null;
}

function isAllowedRedirect(app: OAuthApplication, redirectUri: string): boolean {
  if (app.redirectUris.length > 0) return app.redirectUris.includes(redirectUri);
  try {
    const url = new URL(redirectUri);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function issueAuthorizationCode(
  store: OAuthStore,
  app: OAuthApplication,
  input: { userId: string; clientId: string; redirectUri: string; scope: string; codeChallenge?: string; codeChallengeMethod?: 'S256' },
  now: number,
): string {
  const problem = validateAuthorizationRequest(app, input);
  if (problem) throw new Error(`issueAuthorizationCode: ${problem}`);
  const code = randomToken(20);
  store.codes.set(code, {
    code,
    userId: input.userId,
    clientId: input.clientId,
    redirectUri: input.redirectUri,
    scopes: parseScopes(input.scope),
    ...(input.codeChallenge ? { codeChallenge: input.codeChallenge, codeChallengeMethod: 'S256' as const } : {}),
    expiresAt: now + AUTHORIZATION_CODE_TTL_MS,
    used: false,
    issuedAccessTokens: [],
  });
  return code;
}

/** The authorization request an authorize URL's query carries (what Discord's authorize page reads). */
export function authorizationRequestFrom(params: URLSearchParams): AuthorizationRequest {
  const challenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  return {
    clientId: params.get('client_id') ?? '',
    redirectUri: params.get('redirect_uri') ?? '',
    responseType: params.get('response_type') ?? '',
    scope: params.get('scope') ?? '',
    ...(challenge ? { codeChallenge: challenge, codeChallengeMethod: method ?? 'plain' } : {}),
  };
}

/** `userId` presses "Authorize" on `request`: a code bound to exactly that request (refused as the page would refuse it). */
export function approveAuthorizationRequest(
  store: OAuthStore,
  app: OAuthApplication,
  userId: string,
  request: AuthorizationRequest,
  now: number,
): string {
  const problem = validateAuthorizationRequest(app, request);
  if (problem) throw new Error(`approveAuthorizationRequest: ${problem}`);
  return issueAuthorizationCode(
    store,
    app,
    {
      userId,
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      scope: request.scope,
      ...(request.codeChallenge ? { codeChallenge: request.codeChallenge, codeChallengeMethod: 'S256' as const } : {}),
    },
    now,
  );
}

/** Client credentials from HTTP Basic auth or the form body; `invalid_client` (401) when they do not match. */
function authenticateClient(app: OAuthApplication, form: URLSearchParams, authorization: string | undefined): void {
  let clientId = form.get('client_id') ?? undefined;
  let clientSecret = form.get('client_secret') ?? undefined;
  if (authorization?.startsWith('Basic ')) {
    const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    clientId = decodeURIComponent(decoded.slice(0, colon));
    clientSecret = decodeURIComponent(decoded.slice(colon + 1));
  }
  if (clientId !== app.clientId || clientSecret === undefined || !safeEqual(clientSecret, app.clientSecret)) {
    throw oauthError(401, 'invalid_client');
  }
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function mintTokens(
  store: OAuthStore,
  from: { userId: string; clientId: string; scopes: string[] },
  now: number,
): RESTPostOAuth2AccessTokenResult {
  // only the grant's fields: a refresh record passed in carries its own (old) `token`, which must not be copied
  const grant = { userId: from.userId, clientId: from.clientId, scopes: from.scopes };
  const accessToken = randomToken();
  const refreshToken = randomToken();
  store.accessTokens.set(accessToken, { token: accessToken, ...grant, expiresAt: now + ACCESS_TOKEN_TTL_SECONDS * 1000, refreshToken });
  store.refreshTokens.set(refreshToken, { token: refreshToken, ...grant, accessToken });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
    scope: grant.scopes.join(' '),
  };
}

function revokeAccessToken(store: OAuthStore, accessToken: string): void {
  const record = store.accessTokens.get(accessToken);
  store.accessTokens.delete(accessToken);
  if (record) store.refreshTokens.delete(record.refreshToken);
}

/** POST /oauth2/token: authorization_code and refresh_token grants, with Discord's error bodies. */
export function exchangeToken(
  store: OAuthStore,
  app: OAuthApplication,
  form: URLSearchParams,
  authorization: string | undefined,
  now: number,
): RESTPostOAuth2AccessTokenResult {
  const grantType = form.get('grant_type');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw grantType ? oauthError(400, 'unsupported_grant_type') : oauthError(400, 'invalid_request', 'Missing "grant_type" in request.');
  }
  authenticateClient(app, form, authorization);

  if (grantType === 'refresh_token') {
    const record = store.refreshTokens.get(form.get('refresh_token') ?? '');
    if (!record || record.clientId !== app.clientId) throw oauthError(400, 'invalid_grant', 'Invalid "refresh_token" in request.');
    revokeAccessToken(store, record.accessToken);
    store.refreshTokens.delete(record.token);
    return mintTokens(store, record, now);
  }

  const code = store.codes.get(form.get('code') ?? '');
  if (!code || code.clientId !== app.clientId) throw oauthError(400, 'invalid_grant', 'Invalid "code" in request.');
  if (code.used) {
    for (const token of code.issuedAccessTokens) revokeAccessToken(store, token);
    throw oauthError(400, 'invalid_grant', 'Invalid "code" in request.');
  }
  if (now >= code.expiresAt) {
    store.codes.delete(code.code);
    throw oauthError(400, 'invalid_grant', 'Invalid "code" in request.');
  }
  if (form.get('redirect_uri') !== code.redirectUri) throw oauthError(400, 'invalid_grant', 'Invalid "redirect_uri" in request.');
  verifyPkce(code, form.get('code_verifier'));
  code.used = true;
  const result = mintTokens(store, code, now);
  code.issuedAccessTokens.push(result.access_token);
  return result;
}

function verifyPkce(code: AuthorizationCode, verifier: string | null): void {
  if (!code.codeChallenge) return;
  if (!verifier || !/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) {
    throw oauthError(400, 'invalid_grant', 'Invalid "code_verifier" in request.');
  }
  const computed = createHash('sha256').update(verifier).digest('base64url');
  if (computed !== code.codeChallenge) throw oauthError(400, 'invalid_grant', 'Invalid "code_verifier" in request.');
}

/** The user deauthorizes the app: all their tokens for it go. Returns how many refresh tokens (grants) went. */
export function revokeUserGrants(store: OAuthStore, clientId: string, userId: string): number {
  let grants = 0;
  for (const record of [...store.refreshTokens.values()]) {
    if (record.userId !== userId || record.clientId !== clientId) continue;
    store.refreshTokens.delete(record.token);
    grants += 1;
  }
  for (const record of [...store.accessTokens.values()]) {
    if (record.userId === userId && record.clientId === clientId) store.accessTokens.delete(record.token);
  }
  return grants;
}

/** POST /oauth2/token/revoke: always 200, as RFC 7009 asks, once the client is authenticated. */
export function revokeToken(store: OAuthStore, app: OAuthApplication, form: URLSearchParams, authorization: string | undefined): void {
  authenticateClient(app, form, authorization);
  const token = form.get('token') ?? '';
  const refresh = store.refreshTokens.get(token);
  if (refresh) revokeAccessToken(store, refresh.accessToken);
  revokeAccessToken(store, token);
}

export function findAccessToken(store: OAuthStore, token: string, now: number): AccessTokenRecord | undefined {
  const record = store.accessTokens.get(token);
  if (!record) return undefined;
  if (now >= record.expiresAt) {
    store.accessTokens.delete(token);
    return undefined;
  }
  return record;
}
