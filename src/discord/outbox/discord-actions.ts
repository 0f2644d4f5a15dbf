import { DiscordAPIError, type REST } from '@discordjs/rest';
import {
  RESTJSONErrorCodes,
  Routes,
  type RESTPostAPIChannelMessageJSONBody,
  type RESTPutAPIGuildIncidentActionsJSONBody,
  type RESTPutAPIGuildMemberJSONBody,
} from 'discord-api-types/v10';
import { storedAuditLogReason, openSecret, type ManagedRole, type OutboxEntry } from '../../modules/outbox';
import type { GuildDirectory } from '../guild-directory';
import { logLineOf, planLogPosts, type LogLine } from '../log-cards/log-card-message';
import { createGuildMemberCache, type GuildMemberCache } from '../guild-member-cache';
import { isGuildMember, roleCallsFor, type RoleCalls } from './member-roles';
import type { RoleConnectionUpdates } from '../role-connection-updates';
import type { VerificationLevelCall } from '../lockdown-verification-level-call';

/** Discord's "Unknown Member": the user is not (or no longer) in the guild. */
function isUnknownMember(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMember;
}

/**
 * The Discord calls behind each outbox action. Roles only ever change through Add / Remove
 * Guild Member Role, one role per call: Discord changes that role and no other, so a role a
 * moderator or another bot gave is never lost, whatever the bot knew of the member. Never a
 * Modify Guild Member with a role list (it replaces the whole list, and the bot, with only
 * the GUILDS intent, does not hear of roles others give). Every call carries its reason
 * (X-Audit-Log-Reason) for Discord's audit log.
 *
 * `members` (what the gateway and earlier answers showed of each member's roles) only spares
 * calls that would change nothing:
 * - Join, user known to be in the guild: no Add Guild Member; each role they lack is one
 *   Add Guild Member Role call (none when they hold it). Discord answering Unknown Member
 *   (they left since) falls back to the join below.
 * - Join, otherwise: one Add Guild Member carrying the roles (201 with the member). A 204
 *   means they were in the guild already and Discord ignored `roles`: one role call each.
 * - Role change: one Add Guild Member Role per role given, then one Remove Guild Member Role
 *   per role taken (gains before losses: never left with neither role). A role the member is
 *   known to hold is not given again, one known to be absent not taken; roles unknown: every
 *   call is made (Discord answers 204 to a role held already or not held).
 */
export function createDiscordActions(deps: {
  rest: REST;
  directory: GuildDirectory;
  sealKey: Buffer;
  members?: GuildMemberCache;
  /** the site's address, for the cards' links to the dashboard */
  websiteUrl: string;
  /** the role that posts of alarms ping (planLogPosts), read at each post */
  alarmPingRole?: () => string | null;
  /** hands a joined member's access token over for revocation (in the background: it never fails or delays the join) */
  revokeAccessToken?: (accessToken: string) => void;
  /** Linked Roles: writes a member's role connection with their own grant (role-connection-updates.ts) */
  roleConnections?: Pick<RoleConnectionUpdates, 'run'>;
  /** the lockdown's verification level (lockdown-verification-level-call.ts) */
  verificationLevel?: Pick<VerificationLevelCall, 'run'>;
}) {
  const { rest, directory } = deps;
  const members = deps.members ?? createGuildMemberCache({ maxEntries: 0 });
  const roleIds = (roles: unknown) => Promise.all(((roles as ManagedRole[] | undefined) ?? []).map((r) => directory.roleId(r)));

  /** One role given or taken: Discord changes only that role. */
  async function changeRole(userId: string, roleId: string, give: boolean, reason: string): Promise<void> {
    const path = Routes.guildMemberRole(directory.guildId, userId, roleId);
    if (give) await rest.put(path, { reason });
    else await rest.delete(path, { reason });
  }

  /** What the bot knew of the member stays true plus this change (it may have learnt more while the calls ran). */
  function learnChange(userId: string, calls: RoleCalls): void {
    const known = members.roles(userId);
    if (known) members.remember(userId, [...known.filter((id) => !calls.take.includes(id)), ...calls.give]);
  }

  async function join(userId: string, sealedSecret: string | null, roles: unknown, reason: string): Promise<void> {
    const ids = await roleIds(roles);
    const known = members.roles(userId);
    if (known) {
      const calls = roleCallsFor({ add: ids, remove: [] }, known);
      try {
        for (const roleId of calls.give) await changeRole(userId, roleId, true, reason);
        learnChange(userId, calls);
        return;
      } catch (error) {
        members.forget(userId);
        if (!isUnknownMember(error)) throw error;
        // left since we saw them: join them after all
      }
    }
    if (!sealedSecret) throw new Error('the access token is gone (already used)');
    const body: RESTPutAPIGuildMemberJSONBody = { access_token: openSecret(deps.sealKey, sealedSecret), roles: ids };
    const answer = await rest.put(Routes.guildMember(directory.guildId, userId), { body, reason });
    if (isGuildMember(answer)) {
      members.remember(userId, answer.roles);
      return;
    }
    // 204: already a member, and Discord ignored `roles`; role calls add them without touching others
    for (const roleId of ids) await changeRole(userId, roleId, true, reason);
  }

  async function updateRoles(userId: string, payload: Record<string, unknown>, reason: string): Promise<void> {
    const calls = roleCallsFor({ add: await roleIds(payload.add), remove: await roleIds(payload.remove) }, members.roles(userId));
    try {
      for (const roleId of calls.give) await changeRole(userId, roleId, true, reason);
      for (const roleId of calls.take) await changeRole(userId, roleId, false, reason);
    } catch (error) {
      members.forget(userId);
      throw error;
    }
    learnChange(userId, calls);
  }

  /** A single role given or taken. */
  async function changeOneRole(userId: string, role: ManagedRole, give: boolean, reason: string): Promise<void> {
    const roleId = await directory.roleId(role);
    try {
      await changeRole(userId, roleId, give, reason);
    } catch (error) {
      members.forget(userId);
      throw error;
    }
    learnChange(userId, give ? { give: [roleId], take: [] } : { give: [], take: [roleId] });
  }

  /** One message in the logs channel (planLogPosts: text or cards; mentions shown, only the alarm role pinged). */
  async function postMessage(body: RESTPostAPIChannelMessageJSONBody): Promise<void> {
    const channelId = await directory.channelId('logs');
    await rest.post(Routes.channelMessages(channelId), { body });
  }

  /** Posts log lines (as the outbox holds them) in as few messages as they fit. */
  async function postLog(lines: LogLine[]): Promise<void> {
    for (const post of planLogPosts(lines, deps.websiteUrl, deps.alarmPingRole?.() ?? null)) await postMessage(post.body);
  }

  /**
   * After a join that worked (added, or found in the server already and the token never used):
   * the visitor's access token has no further use, so Discord is asked to revoke it. The outbox
   * erases its sealed copy when it records the join done.
   */
  function revokeUsedToken(sealedSecret: string | null): void {
    if (!sealedSecret || !deps.revokeAccessToken) return;
    let accessToken: string;
    try {
      accessToken = openSecret(deps.sealKey, sealedSecret);
    } catch {
      return; // not readable with this key: no token to revoke, and the join is done
    }
    deps.revokeAccessToken(accessToken);
  }

  async function run(entry: OutboxEntry & { sealedSecret: string | null }): Promise<void> {
    const guildId = directory.guildId;
    const userId = entry.discordId ?? '';
    const payload = entry.payload;
    // @discordjs/rest sends it URL-encoded as X-Audit-Log-Reason
    const reason = storedAuditLogReason(entry.kind, payload);
    switch (entry.kind) {
      case 'add_guild_member':
        return join(userId, entry.sealedSecret, payload.roles, reason);
      case 'update_roles':
        return updateRoles(userId, payload, reason);
      case 'add_role':
        return changeOneRole(userId, payload.role as ManagedRole, true, reason);
      case 'remove_role':
        return changeOneRole(userId, payload.role as ManagedRole, false, reason);
      case 'kick':
        members.forget(userId);
        await rest.delete(Routes.guildMember(guildId, userId), { reason });
        return;
      case 'ban':
        members.forget(userId);
        await rest.put(Routes.guildBan(guildId, userId), { body: {}, reason });
        return;
      case 'unban':
        try {
          await rest.delete(Routes.guildBan(guildId, userId), { reason });
        } catch (error) {
          // not banned (the certain-alt action was none or kick, or staff lifted it already): nothing to undo
          if (!(error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownBan)) throw error;
        }
        return;
      case 'log_message':
        return postLog([logLineOf(entry)]);
      case 'incident_actions': {
        const body: RESTPutAPIGuildIncidentActionsJSONBody = {
          invites_disabled_until: (payload.invitesDisabledUntil as string | null) ?? null,
          dms_disabled_until: (payload.dmsDisabledUntil as string | null) ?? null,
        };
        await rest.put(`/guilds/${guildId}/incident-actions`, { body, reason });
        return;
      }
      case 'role_connection':
        // without the Linked Roles updater (a process that does not run them) there is nothing to write with
        if (!deps.roleConnections) throw new Error('role connections are not updated by this process');
        return deps.roleConnections.run(userId, entry.sealedSecret);
      case 'verification_level':
        if (!deps.verificationLevel) throw new Error('the verification level is not changed by this process');
        return deps.verificationLevel.run(typeof payload.raiseTo === 'number' ? payload.raiseTo : null, reason);
    }
  }

  return { run, postLog, postMessage, revokeUsedToken };
}
