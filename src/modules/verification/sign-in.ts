import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger';
import { OAuthExchangeError, type DiscordIdentity, type DiscordOAuth } from '../../discord/oauth-client';
import { hashIp } from '../network';
import type { VpnCheckResult } from '../vpn/vpn.types';
import type { EarlyCacheRead } from '../vpn/vpn-check.service';
import type { GivenConsent, SignInStateUse, VerificationService } from './verification.service';

/** The VPN/proxy pipeline as the sign-in needs it (src/modules/vpn implements it). */
export interface VpnCheckPort {
  /** `cacheWriteByCaller`: a new provider verdict comes back as `cacheEntry`, written with the verification */
  check(input: { ip: string; ipHash: string; browserTimezone?: string; cacheWriteByCaller?: boolean; earlyCacheRead?: EarlyCacheRead }): Promise<VpnCheckResult>;
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

export interface SignInInput {
  code: string;
  codeVerifier: string;
  redirectUri: string;
  /** the visitor's address as the request shows it; never stored, only hashed */
  clientIp: string | null;
  consent: GivenConsent;
  /**
   * the OAuth state being used up (VerificationService.startSignInStateUse), left to run while
   * Discord exchanges the code: only its first use goes on to the VPN check and the verification
   */
  stateUse: Promise<SignInStateUse>;
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
        return await deps.oauth.exchangeCode({ code: input.code, codeVerifier: input.codeVerifier, redirectUri: input.redirectUri, waitBudgetMs: Math.max(0, deadline - performance.now()) });
      } catch (error) {
        const wait = error instanceof OAuthExchangeError && error.status === 429 ? error.retryAfterMs : null;
        if (wait === null || performance.now() + wait > deadline) throw error;
        deps.logger.info({ retryAfterMs: wait }, 'token exchange rate-limited, waiting');
        await sleep(wait, undefined, { ref: false });
      }
    }
  }

  return async function finishSignIn(input: SignInInput): Promise<SignInResult> {
    // the VPN cache is read for the request's address while the code is exchanged and the identity
    // read, so the check after them does not wait on the database (a sandbox user on a simulated
    // VPN is checked at another address, read then)
    const requestAddress = input.clientIp ? { ip: input.clientIp, hashes: hashIp(deps.ipHashKey, input.clientIp) } : null;
    const earlyCacheRead = requestAddress ? deps.vpn.readCacheEarly({ ip: requestAddress.ip, ipHash: requestAddress.hashes.ipHash }) : undefined;
    let signedIn: { accessToken: string; identity: DiscordIdentity } | { error: unknown };
    try {
      const { accessToken } = await exchangeWithinBudget(input);
      signedIn = { accessToken, identity: await deps.oauth.fetchIdentity(accessToken) };
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
      return { kind: 'failed', reason: 'code_exchange_failed', retryable, detail: { message: error instanceof Error ? error.message.slice(0, 200) : 'unknown' } };
    }
    const { accessToken, identity } = signedIn;
    if (identity.bot) return { kind: 'failed', reason: 'bot_account', retryable: false };

    const ip = deps.sandboxNetwork?.simulatedIpFor(identity.id) ?? input.clientIp;
    if (!ip) return { kind: 'failed', reason: 'no_client_address', retryable: false };
    const ipHashes = ip === requestAddress?.ip ? requestAddress.hashes : hashIp(deps.ipHashKey, ip);
    // a new provider verdict is cached by the verification's last statement (one round trip fewer)
    const vpn = await deps.vpn.check({ ip, ipHash: ipHashes.ipHash, browserTimezone: input.consent.timezone, cacheWriteByCaller: true, earlyCacheRead });

    try {
      const result = await deps.verification.completeVerification({
        identity: { discordId: identity.id, username: identity.username, avatarUrl: identity.avatarUrl },
        accessToken,
        vpn,
        evidence: { ip: ipHashes, fingerprintHash: input.consent.fingerprintHash, components: input.consent.components, browserTokenHash: input.consent.browserTokenHash ?? null, stockProfile: input.consent.stockProfile ?? null },
      });
      if (result.outcome === 'denied') return { kind: 'failed', reason: 'vpn_policy_denied', retryable: false };
      return { kind: 'verified', discordId: identity.id };
    } catch (error) {
      deps.logger.error({ err: error }, 'storing the verification failed');
      return { kind: 'failed', reason: 'store_failed', retryable: false };
    }
  };
}

export type FinishSignIn = ReturnType<typeof createSignInFlow>;
