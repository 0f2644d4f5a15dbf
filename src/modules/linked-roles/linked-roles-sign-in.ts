import type { DiscordOAuth } from '../../discord/oauth-client';
import type { Database } from '../../db/client';
import { hashToken } from '../verification/one-time-tokens.repository';
import { findMemberRowByDiscordId } from '../verification/verification.repository';
import type { VerificationService } from '../verification/verification.service';
import { roleConnectionFor } from './role-connection';

export type LinkedRolesSignInResult = { kind: 'linked'; verified: boolean } | { kind: 'failed'; reason: string };

/**
 * The Linked Roles sign-in: Discord's role menu sends a member to the app's Linked Roles Verification
 * URL (GET /linked-roles); they sign in with Discord (identify + role_connections.write, single-use
 * state bound to the session, PKCE), and Gatekeeper writes their role connection from their record:
 * verified, since when, not flagged as an alt. It verifies nobody and changes no record. The access
 * token is used for that one write and revoked at once (in the background): this sign-in keeps no
 * token. What keeps a connection up to date after later decisions is the grant the verification
 * sign-in keeps while Linked Roles are on (role-connection-grants.repository.ts; docs/behaviour.md,
 * "Linked Roles").
 */
export function createLinkedRolesSignIn(deps: {
  database: Database;
  oauth: DiscordOAuth;
  verification: Pick<VerificationService, 'issueSignInState' | 'openSignInState'>;
  revokeAccessToken?: (accessToken: string) => void;
}) {
  return {
    start: () => deps.verification.issueSignInState(),

    /** Whether a callback's state belongs to a Linked Roles sign-in this session started. */
    isLinkedRolesState: (state: string, sessionStateHash: string | undefined) => Boolean(state && sessionStateHash && hashToken(state) === sessionStateHash),

    async finish(input: { state: string; sessionStateHash: string; code: string; codeVerifier: string; redirectUri: string }): Promise<LinkedRolesSignInResult> {
      const state = deps.verification.openSignInState(input.state, input.sessionStateHash);
      if ('refused' in state) return { kind: 'failed', reason: state.refused };
      // used up before Discord is asked: a second use of the same callback is refused
      if (!(await state.use(deps.database.db))) return { kind: 'failed', reason: 'state_replayed_or_expired' };
      if (!input.code || input.code.length > 512) return { kind: 'failed', reason: 'missing_code' };
      let accessToken: string;
      try {
        ({ accessToken } = await deps.oauth.exchangeCode({ code: input.code, codeVerifier: input.codeVerifier, redirectUri: input.redirectUri }));
      } catch {
        return { kind: 'failed', reason: 'discord_sign_in_failed' };
      }
      try {
        const identity = await deps.oauth.fetchIdentity(accessToken);
        const member = await findMemberRowByDiscordId(deps.database.db, identity.id);
        const connection = roleConnectionFor(member, identity.globalName ?? identity.username);
        await deps.oauth.writeRoleConnection(accessToken, connection);
        return { kind: 'linked', verified: connection.metadata?.verified === '1' };
      } catch {
        return { kind: 'failed', reason: 'role_connection_not_written' };
      } finally {
        deps.revokeAccessToken?.(accessToken);
      }
    },
  };
}
