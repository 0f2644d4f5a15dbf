import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger';
import { OAuthExchangeError, type DiscordIdentity, type DiscordOAuth } from '../../discord/oauth-client';
import { hashIp } from '../network';
import type { VpnCheckResult, EarlyCacheRead } from '../vpn';
import type { SQLWrapper } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { tokensFrom, type RoleConnectionTokens } from '../outbox';
import type { GivenConsent, SignInStateUse, VerificationService } from './verification.service';

/** The VPN/proxy pipeline as the sign-in needs it (src/modules/vpn implements it). */
export interface VpnCheckPort {
  /** `cacheWriteByCaller`: a new provider verdict comes back as `cacheEntry`, written with the verification */
  check(input: {
    ip: string;
    ipHash: string;
    browserTimezone?: string;
    cacheWriteByCaller?: boolean;
    earlyCacheRead?: EarlyCacheRead;
  }): Promise<VpnCheckResult>;
  /**
   * starts the address's cache read while Discord is asked; the check then uses it. Required, so that
   * a wrapper (the metrics one in services.ts) cannot drop it unnoticed: one did, and every sign-in
   * read the cache after Discord answered, 0.7-1.0 ms more of the callback's own time
   */
  readCacheEarly(address: { ip: string; ipHash: string }): EarlyCacheRead;
}

/** Sandbox only: the address a fake Discord user "on a VPN" appears to come from. */
export interface SandboxNetworkPort {
  simulatedIpFor(discordId: string): string | null;
}

/**
 * How long one sign-in may keep retrying a rate-limited code exchange. Discord's codes live
 * for minutes, but the visitor is watching a "Finishing sign-in…" page: past this, a fresh
 * sign-in is the better offer.
 */
export const SIGN_IN_EXCHANGE_BUDGET_MS = 60_000;

export type SignInResult =
  | { kind: 'verified'; discordId: string }
  /** `retryable`: Discord was busy or unreachable, so signing in again can work; otherwise the sign-in is refused */
  | { kind: 'failed'; reason: string; retryable: boolean; detail?: Record<string, unknown> };

/** A sign-in's result as stored for its callback (callback-outcomes.repository.ts): without `detail`, which can carry an error's text. */
export function storedSignInResult(result: SignInResult): SignInResult {
  return result.kind === 'verified'
    ? { kind: 'verified', discordId: result.discordId }
    : { kind: 'failed', reason: result.reason, retryable: result.retryable };
}

/** A stored sign-in result read back; null for anything `storedSignInResult` never wrote. */
export function parseSignInResult(value: unknown): SignInResult | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (v.kind === 'verified' && typeof v.discordId === 'string') return { kind: 'verified', discordId: v.discordId };
  if (v.kind === 'failed' && typeof v.reason === 'string' && typeof v.retryable === 'boolean')
    return { kind: 'failed', reason: v.reason, retryable: v.retryable };
  return null;
}

export interface SignInInput {
  code: string;
  codeVerifier: string;
  redirectUri: string;
  /** the visitor's address as the request shows it; never stored, only hashed */
  clientIp: string | null;
  consent: GivenConsent;
  /**
   * how using up the OAuth state ended (recorded by the callback's claim, callback-outcomes.repository.ts):
   * only its first use goes on to the VPN check and the verification
   */
  stateUse: Promise<SignInStateUse>;
  /**
   * keeps where the sign-in ended for the same callback again (callback-outcomes.repository.ts): written in
   * the verification's last statement when it gets that far, recorded on its own otherwise
   */
  outcome?: { write(executor: Executor, result: SignInResult): SQLWrapper; record(result: SignInResult): Promise<void> };
}

/**
 * A Discord sign-in from code to stored verification: exchange the code (waiting out
 * 429s within the budget), read the identity, check the visitor's address for VPNs and
 * record the verification.
 */
export function createSignInFlow(deps: {
  oauth: DiscordOAuth;
  vpn: VpnCheckPort;
  verification: Pick<VerificationService, 'completeVerification'>;
  ipHashKey: Buffer;
  logger: Logger;
  sandboxNetwork?: SandboxNetworkPort;
  exchangeBudgetMs?: number;
}) {
  const budgetMs = deps.exchangeBudgetMs ?? SIGN_IN_EXCHANGE_BUDGET_MS;

  /**
   * The exchange waits its turn in the app's shared queue (which follows Discord's rate-limit
   * headers) for up to the budget; a 429 still handed back is tried again while its wait fits.
   */
  async function exchangeWithinBudget(input: SignInInput) {
    const deadline = performance.now() + budgetMs;
    for (;;) {
      try {
        return await deps.oauth.exchangeCode({
          code: input.code,
          codeVerifier: input.codeVerifier,
          redirectUri: input.redirectUri,
          waitBudgetMs: Math.max(0, deadline - performance.now()),
        });
      } catch (error) {
        const wait = error instanceof OAuthExchangeError && error.status === 429 ? error.retryAfterMs : null;
        if (wait === null || performance.now() + wait > deadline) throw error;
        deps.logger.info({ retryAfterMs: wait }, 'token exchange rate-limited, waiting');
        await sleep(wait, undefined, { ref: false });
      }
    }
  }

  async function signIn(input: SignInInput, kept: { inStatement: boolean }): Promise<SignInResult> {
    // the VPN cache is read for the request's address while the code is exchanged and the identity
    // read, so the check after them does not wait on the database (a sandbox user on a simulated
    // VPN is checked at another address, read then)
    const requestAddress = input.clientIp ? { ip: input.clientIp, hashes: hashIp(deps.ipHashKey, input.clientIp) } : null;
    const earlyCacheRead = requestAddress
      ? deps.vpn.readCacheEarly({ ip: requestAddress.ip, ipHash: requestAddress.hashes.ipHash })
      : undefined;
    let signedIn: { accessToken: string; identity: DiscordIdentity; grant?: RoleConnectionTokens } | { error: unknown };
    try {
      const tokens = await exchangeWithinBudget(input);
      const { accessToken } = tokens;
      // the sign-in asked for role_connections.write (Linked Roles on) and the visitor granted it
      const grant =
        tokens.scope.split(' ').includes('role_connections.write') && tokens.refreshToken ? tokensFrom(tokens, new Date()) : undefined;
      signedIn = { accessToken, identity: await deps.oauth.fetchIdentity(accessToken), ...(grant ? { grant } : {}) };
    } catch (error) {
      signedIn = { error };
    }
    // a state used before (a replayed callback) ends here, whatever Discord said: before the paid
    // VPN check, with nothing stored; a database that could not record the use allows a new sign-in
    const stateUse = await input.stateUse;
    if (stateUse !== 'ok') return { kind: 'failed', reason: stateUse, retryable: stateUse === 'state_check_failed' };
    if ('error' in signedIn) {
      const { error } = signedIn;
      const retryable = !(error instanceof OAuthExchangeError) || error.transient;
      return {
        kind: 'failed',
        reason: 'code_exchange_failed',
        retryable,
        detail: { message: error instanceof Error ? error.message.slice(0, 200) : 'unknown' },
      };
    }
    const { accessToken, identity, grant } = signedIn;
    if (identity.bot) return { kind: 'failed', reason: 'bot_account', retryable: false };

    const ip = deps.sandboxNetwork?.simulatedIpFor(identity.id) ?? input.clientIp;
    if (!ip) return { kind: 'failed', reason: 'no_client_address', retryable: false };
    const ipHashes = ip === requestAddress?.ip ? requestAddress.hashes : hashIp(deps.ipHashKey, ip);
    // a new provider verdict is cached by the verification's last statement (one round trip fewer)
    const vpn = await deps.vpn.check({
      ip,
      ipHash: ipHashes.ipHash,
      browserTimezone: input.consent.timezone,
      cacheWriteByCaller: true,
      earlyCacheRead,
    });

    const verified: SignInResult = { kind: 'verified', discordId: identity.id };
    const { outcome } = input;
    try {
      const result = await deps.verification.completeVerification({
        identity: { discordId: identity.id, username: identity.username, avatarUrl: identity.avatarUrl },
        accessToken,
        ...(grant ? { roleConnectionGrant: grant } : {}),
        vpn,
        evidence: {
          ip: ipHashes,
          fingerprintHash: input.consent.fingerprintHash,
          components: input.consent.components,
          browserTokenHash: input.consent.browserTokenHash ?? null,
          stockProfile: input.consent.stockProfile ?? null,
        },
        ...(outcome
          ? {
              alsoWrite: (executor: Executor, ended: 'stored' | 'denied') =>
                outcome.write(executor, ended === 'denied' ? VPN_POLICY_DENIED : verified),
            }
          : {}),
      });
      kept.inStatement = true;
      return result.outcome === 'denied' ? VPN_POLICY_DENIED : verified;
    } catch (error) {
      deps.logger.error({ err: error }, 'storing the verification failed');
      return { kind: 'failed', reason: 'store_failed', retryable: false };
    }
  }

  return async function finishSignIn(input: SignInInput): Promise<SignInResult> {
    const kept = { inStatement: false };
    const result = await signIn(input, kept);
    if (!kept.inStatement) await input.outcome?.record(result);
    return result;
  };
}

const VPN_POLICY_DENIED: SignInResult = { kind: 'failed', reason: 'vpn_policy_denied', retryable: false };
