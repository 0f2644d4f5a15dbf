import type { EmulatorContext } from '../context';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { requireBotChannelPermission, requireGuild } from '../guild-guards';
import { toApiGuild } from '../guild-object';
import { ok, type RouteDefinition } from '../rest-router';

export function guildRoutes(context: EmulatorContext): RouteDefinition[] {
  const { state } = context;
  return [
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
