import type { Logger } from '../logger';
import type { DiscordOAuth } from './oauth-client';

/**
 * Revokes visitors' access tokens once they have done their one job (the member added to the
 * server, or found there already), without making anyone wait: the revocation runs in the
 * background, behind sign-ins in the OAuth queue, and a failure is logged and forgotten (the
 * token then expires on its own; one Discord revoked already is fine). Never the token in a log.
 */
export function createTokenRevoker(deps: { oauth: Pick<DiscordOAuth, 'revokeToken'>; logger: Logger }) {
  const pending = new Set<Promise<void>>();
  return {
    revoke(accessToken: string): void {
      const revocation: Promise<void> = deps.oauth
        .revokeToken(accessToken)
        .catch((error: unknown) =>
          deps.logger.warn(
            { reason: error instanceof Error ? error.message.slice(0, 200) : 'unknown' },
            'revoking a used access token failed',
          ),
        )
        .finally(() => pending.delete(revocation));
      pending.add(revocation);
    },
    /** the revocations under way have ended (tests, shutdown) */
    settled: async () => {
      await Promise.all([...pending]);
    },
  };
}
