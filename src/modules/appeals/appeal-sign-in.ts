import type { DiscordOAuth } from '../../discord/oauth-client';
import { hashToken } from '../verification/one-time-tokens.repository';
import type { VerificationService } from '../verification/verification.service';

export type AppealSignInResult = { kind: 'identified'; discordId: string } | { kind: 'failed'; reason: string };

/**
 * "Sign in with Discord again" from the appeal page: the same Discord sign-in as the
 * visitor flow (single-use state bound to the session, PKCE), but it only learns who the
 * visitor is. No attempt, no VPN check, no alt detection, no Discord action: the verdict
 * being appealed stays exactly as it was. It asks Discord for the `identify` scope only, and
 * the access token is revoked as soon as the identity is read (in the background).
 */
export function createAppealSignIn(deps: {
  oauth: DiscordOAuth;
  verification: Pick<VerificationService, 'issueSignInState' | 'consumeSignInState'>;
  /** revokes the token once read (token-revocation.ts); never fails the sign-in */
  revokeAccessToken?: (accessToken: string) => void;
}) {
  return {
    start: () => deps.verification.issueSignInState(),

    /** Whether a callback's state belongs to an appeal sign-in this session started. */
    isAppealState: (state: string, sessionStateHash: string | undefined) => Boolean(state && sessionStateHash && hashToken(state) === sessionStateHash),

    async finish(input: { state: string; sessionStateHash: string; code: string; codeVerifier: string; redirectUri: string }): Promise<AppealSignInResult> {
      const check = await deps.verification.consumeSignInState(input.state, input.sessionStateHash);
      if (check !== 'ok') return { kind: 'failed', reason: check };
      if (!input.code || input.code.length > 512) return { kind: 'failed', reason: 'missing_code' };
      try {
        const { accessToken } = await deps.oauth.exchangeCode({ code: input.code, codeVerifier: input.codeVerifier, redirectUri: input.redirectUri });
        const identity = await deps.oauth.fetchIdentity(accessToken).finally(() => deps.revokeAccessToken?.(accessToken));
        return { kind: 'identified', discordId: identity.id };
      } catch {
        return { kind: 'failed', reason: 'discord_sign_in_failed' };
      }
    },
  };
}

export type AppealSignIn = ReturnType<typeof createAppealSignIn>;
