import { DiscordAPIError, type REST } from '@discordjs/rest';
import { RESTJSONErrorCodes, Routes, type APIGuildMember, type RESTPatchAPIGuildMemberJSONBody, type RESTPutAPIGuildMemberJSONBody } from 'discord-api-types/v10';
import type { ManagedRole, OutboxEntry } from '../../modules/outbox/outbox.types';
import { openSecret } from '../../modules/outbox/sealed-secret';
import type { GuildDirectory } from '../guild-directory';
import { createGuildMemberCache, type GuildMemberCache } from '../guild-member-cache';
import { isGuildMember, nextMemberRoles, sameRoles } from './member-roles';

const MAX_MESSAGE = 1900;

/** Merges log lines into as few messages as fit Discord's length limit, in order. */
export function packLogLines(lines: string[]): string[] {
  const chunks: string[] = [];
  for (const line of lines.map((l) => l.slice(0, MAX_MESSAGE))) {
    const last = chunks.at(-1);
    if (last !== undefined && last.length + line.length + 1 <= MAX_MESSAGE) chunks[chunks.length - 1] = `${last}\n${line}`;
    else chunks.push(line);
  }
  return chunks;
}

/** Discord's "Unknown Member": the user is not (or no longer) in the guild. */
function isUnknownMember(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMember;
}

/**
 * The Discord calls behind each outbox action, as few as the bot's knowledge allows
 * (`members`: what the gateway and earlier answers showed of each member's roles).
 *
 * - Join, user known to be in the guild: no Add Guild Member; each role they lack is one
 *   Add Guild Member Role call (none when they hold it). Discord answering Unknown Member
 *   (they left since) falls back to the join below.
 * - Join, otherwise: one Add Guild Member carrying the roles (201 with the member). A 204
 *   means they were in the guild already and Discord ignored `roles`: one role call each.
 * - Role change, roles known: one Modify Guild Member with the whole new role list, no read
 *   first; none when nothing changes. Roles unknown: read the member, then the same write.
 */
export function createDiscordActions(deps: { rest: REST; directory: GuildDirectory; sealKey: Buffer; members?: GuildMemberCache }) {
  const { rest, directory } = deps;
  const members = deps.members ?? createGuildMemberCache({ maxEntries: 0 });
  const roleIds = (roles: unknown) => Promise.all(((roles as ManagedRole[] | undefined) ?? []).map((r) => directory.roleId(r)));

  async function addRoles(userId: string, ids: readonly string[]): Promise<void> {
    for (const roleId of ids) await rest.put(Routes.guildMemberRole(directory.guildId, userId, roleId));
  }

  async function join(userId: string, sealedSecret: string | null, roles: unknown): Promise<void> {
    const ids = await roleIds(roles);
    const known = members.roles(userId);
    if (known) {
      const missing = ids.filter((id) => !known.includes(id));
      try {
        await addRoles(userId, missing);
        members.remember(userId, [...known, ...missing]);
        return;
      } catch (error) {
        if (!isUnknownMember(error)) throw error;
        members.forget(userId); // left since we saw them: join them after all
      }
    }
    if (!sealedSecret) throw new Error('the access token is gone (already used)');
    const body: RESTPutAPIGuildMemberJSONBody = { access_token: openSecret(deps.sealKey, sealedSecret), roles: ids };
    const answer = await rest.put(Routes.guildMember(directory.guildId, userId), { body });
    if (isGuildMember(answer)) {
      members.remember(userId, answer.roles);
      return;
    }
    // 204: already a member, and Discord ignored `roles`; role calls add them without touching others
    await addRoles(userId, ids);
  }

  async function updateRoles(userId: string, payload: Record<string, unknown>): Promise<void> {
    const change = { add: await roleIds(payload.add), remove: await roleIds(payload.remove) };
    const current = members.roles(userId) ?? ((await rest.get(Routes.guildMember(directory.guildId, userId))) as APIGuildMember).roles;
    const roles = nextMemberRoles(current, change);
    if (sameRoles(roles, current)) return;
    const body: RESTPatchAPIGuildMemberJSONBody = { roles };
    try {
      const answer = await rest.patch(Routes.guildMember(directory.guildId, userId), { body });
      members.remember(userId, isGuildMember(answer) ? answer.roles : roles);
    } catch (error) {
      members.forget(userId);
      throw error;
    }
  }

  /** A single role given or taken: Discord changes only that role, so what we knew stays true plus the change. */
  async function changeOneRole(userId: string, role: ManagedRole, give: boolean): Promise<void> {
    const roleId = await directory.roleId(role);
    const route = Routes.guildMemberRole(directory.guildId, userId, roleId);
    try {
      if (give) await rest.put(route);
      else await rest.delete(route);
    } catch (error) {
      members.forget(userId);
      throw error;
    }
    const known = members.roles(userId);
    if (known) members.remember(userId, give ? [...known, roleId] : known.filter((id) => id !== roleId));
  }

  async function postLog(lines: string[]): Promise<void> {
    const channelId = await directory.channelId('logs');
    for (const content of packLogLines(lines)) {
      await rest.post(Routes.channelMessages(channelId), { body: { content, allowed_mentions: { parse: [] } } });
    }
  }

  async function run(entry: OutboxEntry & { sealedSecret: string | null }): Promise<void> {
    const guildId = directory.guildId;
    const userId = entry.discordId ?? '';
    const payload = entry.payload;
    switch (entry.kind) {
      case 'add_guild_member':
        return join(userId, entry.sealedSecret, payload.roles);
      case 'update_roles':
        return updateRoles(userId, payload);
      case 'add_role':
        return changeOneRole(userId, payload.role as ManagedRole, true);
      case 'remove_role':
        return changeOneRole(userId, payload.role as ManagedRole, false);
      case 'kick':
        members.forget(userId);
        await rest.delete(Routes.guildMember(guildId, userId), { reason: String(payload.reason ?? 'Gatekeeper') });
        return;
      case 'ban':
        members.forget(userId);
        await rest.put(Routes.guildBan(guildId, userId), { body: {}, reason: String(payload.reason ?? 'Gatekeeper') });
        return;
      case 'unban':
        try {
          await rest.delete(Routes.guildBan(guildId, userId), { reason: String(payload.reason ?? 'Gatekeeper') });
        } catch (error) {
          // not banned (the certain-alt action was none or kick, or staff lifted it already): nothing to undo
          if (!(error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownBan)) throw error;
        }
        return;
      case 'log_message':
        return postLog([String(payload.text ?? '')]);
    }
  }

  return { run, postLog };
}

export type DiscordActions = ReturnType<typeof createDiscordActions>;
