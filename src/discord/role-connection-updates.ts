import type { Database } from '../db/client';
import type { Logger } from '../logger';
import { deleteGrant, readGrant, saveGrant, tokensFrom, type RoleConnectionTokens, openSecret } from '../modules/outbox';
import { roleConnectionFor } from '../modules/linked-roles';
import { findMemberRowByDiscordId } from '../modules/members';
import { GrantRevokedError, isRevokedGrant, type DiscordOAuth, type OAuthTokens } from './oauth-client';

/** An access token this close to its end is renewed before use. */
const RENEW_BEFORE_MS = 60_000;

/**
 * The outbox's role_connection action: writes a member's "Verified with Gatekeeper" connection
 * with their own grant, from what their record says now. The access token is renewed with the
 * refresh token when it runs out (or Discord no longer takes it), and the renewed tokens stored.
 *
 * A member who revoked the app's access (Discord answers invalid_grant or 401 to the refresh): the
 * stored grant is dropped, one log line says so, and the action ends as done: nothing to retry.
 * Any other failure (Discord unreachable, 5xx, 429) is thrown for the outbox to retry.
 */
export function createRoleConnectionUpdates(deps: {
  database: Database;
  oauth: DiscordOAuth;
  sealKey: Buffer;
  logger: Logger;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  const { db } = deps.database;

  function revoked(discordId: string): void {
    deps.logger.info(
      { discordId },
      "Linked Roles: the member removed Gatekeeper's access in Discord; their stored grant is dropped and their connection is no longer updated",
    );
  }

  async function renew(discordId: string, refreshToken: string): Promise<RoleConnectionTokens> {
    const tokens = tokensFrom(await deps.oauth.refreshTokens(refreshToken), now());
    await saveGrant(db, deps.sealKey, discordId, tokens, now());
    return tokens;
  }

  async function connectionOf(discordId: string) {
    const member = await findMemberRowByDiscordId(db, discordId);
    return roleConnectionFor(member, member?.username ?? discordId);
  }

  /** The member's connection brought up to date with their stored grant; none: nothing to do. */
  async function update(discordId: string): Promise<void> {
    let grant = await readGrant(db, deps.sealKey, discordId);
    if (!grant) return;
    try {
      if (grant.accessExpiresAt.getTime() - now().getTime() < RENEW_BEFORE_MS) grant = await renew(discordId, grant.refreshToken);
      const connection = await connectionOf(discordId);
      try {
        await deps.oauth.writeRoleConnection(grant.accessToken, connection);
      } catch (error) {
        // the access token was revoked on its own: the refresh token tells whether the grant still holds
        if (!isRevokedGrant(error)) throw error;
        grant = await renew(discordId, grant.refreshToken);
        await deps.oauth.writeRoleConnection(grant.accessToken, connection);
      }
    } catch (error) {
      if (!(error instanceof GrantRevokedError)) throw error;
      await deleteGrant(db, discordId);
      revoked(discordId);
    }
  }

  /**
   * A deletion: the member's connection cleared (Gatekeeper knows nothing of them any more, so it says
   * not verified) with the grant taken from their deleted record, then the grant revoked at Discord.
   */
  async function clear(discordId: string, sealedRefreshToken: string): Promise<void> {
    let refreshToken: string;
    try {
      refreshToken = openSecret(deps.sealKey, sealedRefreshToken);
    } catch {
      return; // not readable with this key: there is nothing to act with
    }
    let tokens: OAuthTokens;
    try {
      tokens = await deps.oauth.refreshTokens(refreshToken);
    } catch (error) {
      if (error instanceof GrantRevokedError) return revoked(discordId);
      throw error;
    }
    // no name either: the record it came from is gone
    const { platform_username: _name, ...cleared } = roleConnectionFor(undefined, '');
    await deps.oauth.writeRoleConnection(tokens.accessToken, cleared);
    // revoking the access token revokes its refresh token with it
    await deps.oauth.revokeToken(tokens.accessToken);
  }

  return {
    run: (discordId: string, sealedRefreshToken: string | null) =>
      sealedRefreshToken ? clear(discordId, sealedRefreshToken) : update(discordId),
  };
}

export type RoleConnectionUpdates = ReturnType<typeof createRoleConnectionUpdates>;
