import type { EmulatorContext } from '../context';
import { GatewayDispatchEvents, PermissionFlagsBits } from 'discord-api-types/v10';
import { requireBotChannelPermission, requireBotPermission, requireGuild } from '../guild-guards';
import { toApiGuild } from '../guild-object';
import { fieldError } from '../rest-error';
import { ok, type RouteContext, type RouteDefinition } from '../rest-router';
import { auditReason } from './guild-members';

/** Discord refuses an incident action more than 24 hours ahead. */
export const INCIDENT_ACTION_MAX_MS = 24 * 60 * 60 * 1000;

/**
 * A `*_disabled_until` value of Modify Guild Incident Actions: null lifts the pause; a time must be at most
 * 24 hours ahead (Discord answers 50035 otherwise). The body's shape (date-time or null) is checked by the
 * OpenAPI check before this runs.
 */
function incidentUntil(field: string, value: unknown, now: number): string | null {
  if (value === null || value === undefined) return null;
  const at = Date.parse(String(value));
  if (Number.isNaN(at)) throw fieldError(field, 'DATE_TIME_TYPE_CONVERT', 'Could not interpret value as a date-time.');
  if (at - now > INCIDENT_ACTION_MAX_MS) throw fieldError(field, 'BASE_TYPE_BAD_DATE', 'Date must be within 24 hours of now.');
  return new Date(at).toISOString();
}

export function guildRoutes(context: EmulatorContext): RouteDefinition[] {
  const { state } = context;
  const guildUpdated = () => state.dispatch(GatewayDispatchEvents.GuildUpdate, toApiGuild(state));
  const audit = (request: RouteContext, action: 'guild_incident_actions' | 'guild_update') =>
    state.auditLog.push({
      action,
      targetId: state.guild.id,
      changes: { ...((request.body ?? {}) as Record<string, unknown>) },
      at: context.now(),
      reason: auditReason(request),
    });
  /** A guild change: the guild must exist and the bot must have Manage Server; returns the request body. */
  const guildChange = (call: RouteContext): unknown => {
    requireGuild(context, call.params.guildId);
    requireBotPermission(context, PermissionFlagsBits.ManageGuild);
    return call.body;
  };
  return [
    {
      // Modify Guild Incident Actions: needs Manage Server; a field left out keeps its value, null lifts it
      method: 'PUT',
      path: '/guilds/:guildId/incident-actions',
      auth: 'bot',
      bucket: 'guilds',
      handle: (call) => {
        const request = (guildChange(call) ?? {}) as Record<string, unknown>;
        const now = context.now();
        const incidents = state.guild.incidents;
        const invites =
          'invites_disabled_until' in request
            ? incidentUntil('invites_disabled_until', request.invites_disabled_until, now)
            : incidents.invites_disabled_until;
        const dms =
          'dms_disabled_until' in request
            ? incidentUntil('dms_disabled_until', request.dms_disabled_until, now)
            : incidents.dms_disabled_until;
        state.guild.incidents = { ...incidents, invites_disabled_until: invites, dms_disabled_until: dms };
        audit(call, 'guild_incident_actions');
        guildUpdated();
        return ok({ invites_disabled_until: invites, dms_disabled_until: dms });
      },
    },
    {
      // Modify Guild: the emulator keeps the verification level (other fields are accepted and left as they are)
      method: 'PATCH',
      path: '/guilds/:guildId',
      auth: 'bot',
      bucket: 'guilds',
      handle: (call) => {
        const level = (guildChange(call) as { verification_level?: number | null } | undefined)?.verification_level;
        if (typeof level === 'number') state.guild.verificationLevel = level;
        audit(call, 'guild_update');
        guildUpdated();
        return ok(toApiGuild(state));
      },
    },
    {
      method: 'GET',
      path: '/guilds/:guildId',
      auth: 'bot',
      bucket: 'guilds',
      handle: ({ params, query }) => {
        requireGuild(context, params.guildId);
        const guild = toApiGuild(state);
        if (query.get('with_counts') === 'true') {
          guild.approximate_member_count = state.guild.members.size;
          guild.approximate_presence_count = 0;
        }
        return ok(guild);
      },
    },
    {
      method: 'GET',
      path: '/guilds/:guildId/channels',
      auth: 'bot',
      bucket: 'guilds',
      handle: ({ params }) => {
        requireGuild(context, params.guildId);
        return ok([...state.guild.channels.values()]);
      },
    },
    {
      method: 'GET',
      path: '/guilds/:guildId/roles',
      auth: 'bot',
      bucket: 'guilds',
      handle: ({ params }) => {
        requireGuild(context, params.guildId);
        return ok(state.sortedRoles());
      },
    },
    {
      method: 'GET',
      path: '/channels/:channelId',
      auth: 'bot',
      bucket: 'channels',
      handle: ({ params }) => {
        const channel = state.requireChannel(params.channelId ?? '');
        requireBotChannelPermission(context, channel.id, PermissionFlagsBits.ViewChannel);
        return ok(channel);
      },
    },
  ];
}
