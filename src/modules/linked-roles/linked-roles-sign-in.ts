import type { DiscordOAuth, OAuthTokens } from '../../discord/oauth-client';
import type { Database } from '../../db/client';
import { queueRoleConnectionUpdate, saveGrant, tokensFrom, type OutboxPort } from '../outbox';
import { findMemberRowByDiscordId, type VerificationService } from '../verification';
import { roleConnectionFor } from './role-connection';

export type LinkedRolesSignInResult = { kind: 'linked'; verified: boolean } | { kind: 'failed'; reason: string };

/**
 * The Linked Roles sign-in: Discord's role menu sends a member to the app's Linked Roles Verification
 * URL (GET /linked-roles); they sign in with Discord (identify + role_connections.write, single-use
 * state bound to the session, PKCE), and Gatekeeper writes their role connection from their record:
 * verified, since when, not flagged as an alt. It verifies nobody and changes no record.
 *
 * A member with a record keeps their grant the way the verification sign-in keeps it (sealed, only
 * while Linked Roles are on; role-connection-grants.repository.ts), so later decisions update their
 * connection too. It is stored before the write: a decision taken meanwhile queues its own update.
 * A write that fails leaves the kept grant to the outbox, which writes the connection when Discord
 * answers. Nobody to keep it for (no record, Linked Roles off, no refresh token): the access token is
 * used for the one write and revoked at once (in the background).
 */
export function createLinkedRolesSignIn(deps: {
  database: Database;
  oauth: DiscordOAuth;
  verification: Pick<VerificationService, 'issueSignInState' | 'isSessionSignInState' | 'openSignInState'>;
  revokeAccessToken?: (accessToken: string) => void;
  /** where a member's grant is kept: while `enabled` (Linked Roles on), sealed with `sealKey`; the outbox writes after a failed write */
  grants?: { readonly enabled: boolean; sealKey: Buffer; outbox: OutboxPort; nudgeOutbox?: () => void; now?: () => Date };
}) {
  const { db } = deps.database;

  /** Keeps the member's grant when it can; false when it is not kept (the caller revokes the token). */
  async function keepGrant(discordId: string, tokens: OAuthTokens): Promise<boolean> {
    const grants = deps.grants;
    if (!grants?.enabled || !tokens.refreshToken || !tokens.scope.split(' ').includes('role_connections.write')) return false;
    const now = grants.now?.() ?? new Date();
    try {
      await saveGrant(db, grants.sealKey, discordId, tokensFrom(tokens, now), now);
      return true;
    } catch {
      return false; // the record went meanwhile (the grant's foreign key): nothing to keep it for
    }
  }

  /** The kept grant writes the connection through the outbox (retried until Discord answers). */
  async function leaveToOutbox(discordId: string): Promise<void> {
    const grants = deps.grants;
    if (!grants) return;
    try {
      if (await queueRoleConnectionUpdate(db, grants.outbox, discordId)) grants.nudgeOutbox?.();
    } catch {
      // the grant stays: the next decision about the member writes their connection
    }
  }

  return {
    start: () => deps.verification.issueSignInState(),

    /** Whether a callback's state belongs to a Linked Roles sign-in this session started. */
    isLinkedRolesState: deps.verification.isSessionSignInState,

    async finish(input: {
      state: string;
      sessionStateHash: string;
      code: string;
      codeVerifier: string;
      redirectUri: string;
    }): Promise<LinkedRolesSignInResult> {
      const state = deps.verification.openSignInState(input.state, input.sessionStateHash);
      if ('refused' in state) return { kind: 'failed', reason: state.refused };
      // used up before Discord is asked: a second use of the same callback is refused
      if (!(await state.use(db))) return { kind: 'failed', reason: 'state_replayed_or_expired' };
      if (!input.code || input.code.length > 512) return { kind: 'failed', reason: 'missing_code' };
      let tokens: OAuthTokens;
      try {
        tokens = await deps.oauth.exchangeCode({ code: input.code, codeVerifier: input.codeVerifier, redirectUri: input.redirectUri });
      } catch {
        return { kind: 'failed', reason: 'discord_sign_in_failed' };
      }
      const { accessToken } = tokens;
      let keptFor: string | null = null;
      try {
        const identity = await deps.oauth.fetchIdentity(accessToken);
        const member = await findMemberRowByDiscordId(db, identity.id);
        if (member && (await keepGrant(identity.id, tokens))) keptFor = identity.id;
        const connection = roleConnectionFor(member, identity.globalName ?? identity.username);
        await deps.oauth.writeRoleConnection(accessToken, connection);
        return { kind: 'linked', verified: connection.metadata?.verified === '1' };
      } catch {
        if (keptFor) await leaveToOutbox(keptFor);
        return { kind: 'failed', reason: 'role_connection_not_written' };
      } finally {
        if (!keptFor) deps.revokeAccessToken?.(accessToken);
      }
    },
  };
}
