import type { DiscordOAuth } from '../../discord/oauth-client';
import { type CallbackOutcomes, type VerificationService } from '../verification';

export type AppealSignInResult = { kind: 'identified'; discordId: string } | { kind: 'failed'; reason: string };

/** How long the first request for an appeal callback may take before a repeat gives it up as lost. */
export const APPEAL_SIGN_IN_RUNNING_MS = 30_000;

/** An appeal sign-in's stored outcome read back (callback-outcomes.repository.ts); null for anything else. */
export function parseAppealSignInResult(value: unknown): AppealSignInResult | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (v.kind === 'identified' && typeof v.discordId === 'string') return { kind: 'identified', discordId: v.discordId };
  if (v.kind === 'failed' && typeof v.reason === 'string') return { kind: 'failed', reason: v.reason };
  return null;
}

/**
 * "Sign in with Discord again" from the appeal page: the same Discord sign-in as the
 * visitor flow (single-use state bound to the session, PKCE), but it only learns who the
 * visitor is. No attempt, no VPN check, no alt detection, no Discord action: the verdict
 * being appealed stays exactly as it was. It asks Discord for the `identify` scope only, and
 * the access token is revoked as soon as the identity is read (in the background).
 *
 * The same callback sent again (a double click, a reload, on this web process or another)
 * gets the first one's result: the first request records it in the database (`outcomes`), a
 * repeat waits for it there, and Discord is asked to exchange the code once.
 */
export function createAppealSignIn(deps: {
  oauth: DiscordOAuth;
  verification: Pick<VerificationService, 'issueSignInState' | 'isSessionSignInState' | 'openSignInState'>;
  outcomes: CallbackOutcomes<AppealSignInResult>;
  /** revokes the token once read (token-revocation.ts); never fails the sign-in */
  revokeAccessToken?: (accessToken: string) => void;
}) {
  async function signIn(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<AppealSignInResult> {
    try {
      const { accessToken } = await deps.oauth.exchangeCode({
        code: input.code,
        codeVerifier: input.codeVerifier,
        redirectUri: input.redirectUri,
      });
      const identity = await deps.oauth.fetchIdentity(accessToken).finally(() => deps.revokeAccessToken?.(accessToken));
      return { kind: 'identified', discordId: identity.id };
    } catch {
      return { kind: 'failed', reason: 'discord_sign_in_failed' };
    }
  }

  return {
    start: () => deps.verification.issueSignInState(),

    /** Whether a callback's state belongs to an appeal sign-in this session started. */
    isAppealState: deps.verification.isSessionSignInState,

    /** The sign-in of this callback (`callbackHash`: its state and code hashed), or, for the same callback again, the first one's result. */
    async finish(input: {
      state: string;
      sessionStateHash: string;
      code: string;
      codeVerifier: string;
      redirectUri: string;
      callbackHash: string;
    }): Promise<AppealSignInResult> {
      if (!input.code || input.code.length > 512) return { kind: 'failed', reason: 'missing_code' };
      const state = deps.verification.openSignInState(input.state, input.sessionStateHash);
      if ('refused' in state) return { kind: 'failed', reason: state.refused };
      // the state is used up in the statement that takes the callback (callback-outcomes.repository.ts)
      const claim = await deps.outcomes.claim(input.sessionStateHash, input.callbackHash, state.useQuery);
      const taken =
        claim.kind === 'running' ? await deps.outcomes.wait(input.sessionStateHash, input.callbackHash, APPEAL_SIGN_IN_RUNNING_MS) : claim;
      switch (taken.kind) {
        case 'done':
          return taken.outcome;
        case 'running':
        case 'lost':
          return { kind: 'failed', reason: 'sign_in_job_lost' };
        case 'other_code':
          return { kind: 'failed', reason: 'state_replayed_or_expired' };
        case 'unavailable':
          return { kind: 'failed', reason: 'state_check_failed' };
        case 'claimed': {
          const result: AppealSignInResult = taken.stateUsed
            ? await signIn(input)
            : { kind: 'failed', reason: 'state_replayed_or_expired' };
          await deps.outcomes.record(input.sessionStateHash, result);
          return result;
        }
      }
    },
  };
}
