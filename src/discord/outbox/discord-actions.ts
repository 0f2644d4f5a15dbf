import type { REST } from '@discordjs/rest';
import { Routes, type APIGuildMember, type RESTPatchAPIGuildMemberJSONBody, type RESTPutAPIGuildMemberJSONBody } from 'discord-api-types/v10';
import type { ManagedRole, OutboxEntry } from '../../modules/outbox/outbox.types';
import { openSecret } from '../../modules/outbox/sealed-secret';
import type { GuildDirectory } from '../guild-directory';
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

/**
 * The Discord calls behind each outbox action. A join carries its roles (one call); a role
 * change is one Modify Guild Member with the whole role list, read just before it.
 */
export function createDiscordActions(deps: { rest: REST; directory: GuildDirectory; sealKey: Buffer }) {
  const { rest, directory } = deps;
  const roleIds = (roles: unknown) => Promise.all(((roles as ManagedRole[] | undefined) ?? []).map((r) => directory.roleId(r)));

  async function join(userId: string, sealedSecret: string | null, roles: unknown): Promise<void> {
    if (!sealedSecret) throw new Error('the access token is gone (already used)');
    const ids = await roleIds(roles);
    const body: RESTPutAPIGuildMemberJSONBody = { access_token: openSecret(deps.sealKey, sealedSecret), roles: ids };
    const answer = await rest.put(Routes.guildMember(directory.guildId, userId), { body });
    if (isGuildMember(answer)) return;
    // 204: already a member, and Discord ignored `roles`; role calls add them without touching others
    for (const roleId of ids) await rest.put(Routes.guildMemberRole(directory.guildId, userId, roleId));
  }

  async function updateRoles(userId: string, payload: Record<string, unknown>): Promise<void> {
    const change = { add: await roleIds(payload.add), remove: await roleIds(payload.remove) };
    const member = (await rest.get(Routes.guildMember(directory.guildId, userId))) as APIGuildMember;
    const roles = nextMemberRoles(member.roles, change);
    if (sameRoles(roles, member.roles)) return;
    const body: RESTPatchAPIGuildMemberJSONBody = { roles };
    await rest.patch(Routes.guildMember(directory.guildId, userId), { body });
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
        await rest.put(Routes.guildMemberRole(guildId, userId, await directory.roleId(payload.role as ManagedRole)));
        return;
      case 'remove_role':
        await rest.delete(Routes.guildMemberRole(guildId, userId, await directory.roleId(payload.role as ManagedRole)));
        return;
      case 'kick':
        await rest.delete(Routes.guildMember(guildId, userId), { reason: String(payload.reason ?? 'Gatekeeper') });
        return;
      case 'ban':
        await rest.put(Routes.guildBan(guildId, userId), { body: {}, reason: String(payload.reason ?? 'Gatekeeper') });
        return;
      case 'log_message':
        return postLog([String(payload.text ?? '')]);
    }
  }

  return { run, postLog };
}

export type DiscordActions = ReturnType<typeof createDiscordActions>;
