import { PermissionFlagsBits, type RESTGetAPIGuildMembersResult } from 'discord-api-types/v10';
import { z } from 'zod';
import type { EmulatorContext } from '../context';
import { discordInteger, parseBody } from '../form-validation';
import {
  invalidAccessToken,
  requireActionableMember,
  requireBotPermission,
  requireGuild,
  requireManageableRole,
  userBanned,
} from '../guild-guards';
import { findAccessToken } from '../oauth';
import { unknownBan } from '../rest-error';
import { created, noContent, ok, type RouteContext, type RouteDefinition } from '../rest-router';
import type { AuditEntry, MemberRecord } from '../state';

const snowflake = z.string().regex(/^\d{17,20}$/);

const addMemberBody = z.object({
  access_token: z.string().min(1),
  nick: z.string().max(32).nullish(),
  roles: z.array(snowflake).nullish(),
  mute: z.boolean().nullish(),
  deaf: z.boolean().nullish(),
});

const editMemberBody = z.object({
  nick: z.string().max(32).nullish(),
  roles: z.array(snowflake).nullish(),
  communication_disabled_until: z.string().nullish(),
  mute: z.boolean().nullish(),
  deaf: z.boolean().nullish(),
  channel_id: snowflake.nullish(),
  flags: discordInteger().nullish(),
});

const banBody = z.object({
  delete_message_days: discordInteger().pipe(z.number().min(0).max(7)).nullish(),
  delete_message_seconds: discordInteger().pipe(z.number().min(0).max(604_800)).nullish(),
});

export function auditReason(request: RouteContext): string | null {
  const header = request.headers['x-audit-log-reason'];
  if (typeof header !== 'string') return null;
  try {
    return decodeURIComponent(header);
  } catch {
    return header;
  }
}

export function guildMemberRoutes(context: EmulatorContext): RouteDefinition[] {
  const { state } = context;
  const audit = (request: RouteContext, entry: Omit<AuditEntry, 'at' | 'reason'>) =>
    state.auditLog.push({ ...entry, at: context.now(), reason: auditReason(request) });
  /** A member list answer: the first `limit` members (1 to 1000, 1 when absent), as Discord sends them. */
  const firstOf = (members: MemberRecord[], query: URLSearchParams): RESTGetAPIGuildMembersResult => {
    const limit = Math.min(Math.max(Number(query.get('limit') ?? 1), 1), 1000);
    return members.slice(0, limit).map((member) => state.toApiMember(member));
  };
  const memberOf = (params: Record<string, string>) => {
    requireGuild(context, params.guildId);
    return state.requireMember(params.userId ?? '');
  };

  return [
    {
      method: 'GET',
      path: '/guilds/:guildId/members',
      auth: 'bot',
      bucket: 'member-read',
      handle: ({ params, query }) => {
        requireGuild(context, params.guildId);
        const after = BigInt(query.get('after') ?? '0');
        const members = [...state.guild.members.values()]
          .filter((member) => BigInt(member.userId) > after)
          .sort((a, b) => (BigInt(a.userId) < BigInt(b.userId) ? -1 : 1));
        return ok(firstOf(members, query));
      },
    },
    {
      method: 'GET',
      path: '/guilds/:guildId/members/search',
      auth: 'bot',
      bucket: 'member-read',
      handle: ({ params, query }) => {
        requireGuild(context, params.guildId);
        const needle = (query.get('query') ?? '').toLowerCase();
        const members = [...state.guild.members.values()].filter((member) => {
          const user = state.requireUser(member.userId);
          return [user.username, user.global_name ?? '', member.nick ?? ''].some((name) => name.toLowerCase().startsWith(needle));
        });
        return ok(firstOf(members, query));
      },
    },
    {
      method: 'GET',
      path: '/guilds/:guildId/members/:userId',
      auth: 'bot',
      bucket: 'member-read',
      handle: ({ params }) => ok(state.toApiMember(memberOf(params))),
    },
    {
      method: 'PUT',
      path: '/guilds/:guildId/members/:userId',
      auth: 'bot',
      bucket: 'member-add',
      handle: (request) => {
        const { params } = request;
        requireGuild(context, params.guildId);
        const userId = params.userId ?? '';
        const body = parseBody(addMemberBody, request.body);
        state.requireUser(userId);
        const grant = findAccessToken(state.oauth, body.access_token, context.now());
        if (!grant || grant.userId !== userId || grant.clientId !== context.application.clientId || !grant.scopes.includes('guilds.join')) {
          throw invalidAccessToken();
        }
        if (state.guild.bans.has(userId)) throw userBanned();
        requireBotPermission(context, PermissionFlagsBits.CreateInstantInvite);
        if (state.guild.members.has(userId)) return noContent();
        const roles = body.roles ?? [];
        for (const roleId of roles) requireManageableRole(context, state.requireRole(roleId));
        const member = state.addMember(userId, roles, body.nick ?? null);
        audit(request, { action: 'member_add', targetId: userId });
        return created(state.toApiMember(member));
      },
    },
    {
      method: 'PATCH',
      path: '/guilds/:guildId/members/:userId',
      auth: 'bot',
      bucket: 'member-edit',
      handle: (request) => {
        const member = memberOf(request.params);
        const body = parseBody(editMemberBody, request.body);
        if (body.roles) {
          const next = new Set(body.roles);
          const changed = [...next].filter((id) => !member.roles.includes(id)).concat(member.roles.filter((id) => !next.has(id)));
          for (const roleId of changed) requireManageableRole(context, state.requireRole(roleId));
        }
        if (body.nick !== undefined) requireBotPermission(context, PermissionFlagsBits.ManageNicknames);
        if (body.communication_disabled_until !== undefined) {
          requireBotPermission(context, PermissionFlagsBits.ModerateMembers);
          requireActionableMember(context, member);
        }
        const updated = state.updateMember(member.userId, {
          ...(body.roles ? { roles: body.roles } : {}),
          ...(body.nick !== undefined ? { nick: body.nick } : {}),
          ...(body.communication_disabled_until !== undefined ? { communicationDisabledUntil: body.communication_disabled_until } : {}),
        });
        audit(request, { action: 'member_update', targetId: member.userId });
        return ok(state.toApiMember(updated));
      },
    },
    {
      method: 'DELETE',
      path: '/guilds/:guildId/members/:userId',
      auth: 'bot',
      bucket: 'member-kick',
      handle: (request) => {
        const member = memberOf(request.params);
        requireBotPermission(context, PermissionFlagsBits.KickMembers);
        requireActionableMember(context, member);
        state.removeMember(member.userId);
        audit(request, { action: 'member_kick', targetId: member.userId });
        return noContent();
      },
    },
    ...(['PUT', 'DELETE'] as const).map((method): RouteDefinition => ({
      method,
      path: '/guilds/:guildId/members/:userId/roles/:roleId',
      auth: 'bot',
      bucket: 'member-roles',
      handle: (request) => {
        const member = memberOf(request.params);
        const role = state.requireRole(request.params.roleId ?? '');
        requireManageableRole(context, role);
        const held = member.roles.includes(role.id);
        // a role held already, or not held: 204 and nothing changes, nothing in the audit log
        if (held === (method === 'PUT')) return noContent();
        const roles = method === 'PUT' ? [...member.roles, role.id] : member.roles.filter((id) => id !== role.id);
        state.updateMember(member.userId, { roles });
        audit(request, { action: method === 'PUT' ? 'member_role_add' : 'member_role_remove', targetId: member.userId, roleId: role.id });
        return noContent();
      },
    })),
    {
      method: 'GET',
      path: '/guilds/:guildId/bans/:userId',
      auth: 'bot',
      bucket: 'bans',
      handle: ({ params }) => {
        requireGuild(context, params.guildId);
        requireBotPermission(context, PermissionFlagsBits.BanMembers);
        const ban = state.guild.bans.get(params.userId ?? '');
        if (!ban) throw unknownBan();
        return ok(ban);
      },
    },
    {
      method: 'PUT',
      path: '/guilds/:guildId/bans/:userId',
      auth: 'bot',
      bucket: 'bans',
      handle: (request) => {
        const { params } = request;
        requireGuild(context, params.guildId);
        parseBody(banBody, request.body);
        requireBotPermission(context, PermissionFlagsBits.BanMembers);
        const userId = params.userId ?? '';
        state.requireUser(userId);
        const member = state.getMember(userId);
        if (member) requireActionableMember(context, member);
        state.ban(userId, auditReason(request));
        audit(request, { action: 'member_ban', targetId: userId });
        return noContent();
      },
    },
    {
      method: 'DELETE',
      path: '/guilds/:guildId/bans/:userId',
      auth: 'bot',
      bucket: 'bans',
      handle: (request) => {
        const { params } = request;
        requireGuild(context, params.guildId);
        requireBotPermission(context, PermissionFlagsBits.BanMembers);
        if (!state.guild.bans.has(params.userId ?? '')) throw unknownBan();
        state.unban(params.userId ?? '');
        audit(request, { action: 'member_unban', targetId: params.userId ?? '' });
        return noContent();
      },
    },
  ];
}
