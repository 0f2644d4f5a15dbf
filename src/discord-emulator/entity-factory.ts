import { ChannelType, type APIRole, type APITextChannel, type APIUser, type RoleFlags } from 'discord-api-types/v10';

/** A bit field with no bits set (discord-api-types types flags as enums, which exclude 0). */
const NO_ROLE_FLAGS = 0 as RoleFlags;
import { generateSnowflake } from './snowflake';

export function makeUser(input: {
  username: string;
  globalName?: string | null;
  avatar?: string | null;
  bot?: boolean;
  createdAt?: number;
}): APIUser {
  return {
    id: generateSnowflake(input.createdAt ?? Date.now()),
    username: input.username,
    discriminator: '0',
    global_name: input.globalName ?? null,
    avatar: input.avatar ?? null,
    ...(input.bot ? { bot: true } : {}),
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
  };
}

export function makeRole(input: {
  id?: string;
  name: string;
  position: number;
  permissions: bigint;
  color?: number;
  managed?: boolean;
  botId?: string;
  hoist?: boolean;
}): APIRole {
  const color = input.color ?? 0;
  return {
    id: input.id ?? generateSnowflake(),
    name: input.name,
    color,
    colors: { primary_color: color, secondary_color: null, tertiary_color: null },
    hoist: input.hoist ?? false,
    icon: null,
    unicode_emoji: null,
    position: input.position,
    permissions: String(input.permissions),
    managed: input.managed ?? false,
    mentionable: false,
    flags: NO_ROLE_FLAGS,
    ...(input.botId ? { tags: { bot_id: input.botId } } : {}),
  };
}

export function makeTextChannel(guildId: string, name: string, position: number, topic: string | null = null): APITextChannel {
  return {
    id: generateSnowflake(),
    type: ChannelType.GuildText,
    guild_id: guildId,
    name,
    position,
    topic,
    nsfw: false,
    parent_id: null,
    permission_overwrites: [],
    last_message_id: null,
    rate_limit_per_user: 0,
  };
}
