import type { REST } from '@discordjs/rest';
import { Routes, type APIChannel, type APIGuild, type APIGuildMember, type APIRole, type APIUser } from 'discord-api-types/v10';
import { roleSafetyProblems } from '../../discord/role-safety';
import type { GuildNamesCheck } from './settings.service';

const SNOWFLAKE = /^\d{15,21}$/;

/**
 * Whether a role or channel given by name (case-insensitive) or id exists in the
 * server, asked of Discord at the moment a setting changes. When Discord cannot be
 * asked the answer is "unknown" and the change is not refused for it. `refusedRoles` reads the
 * guild's roles and the bot's own to apply the role-safety rule to a proposed set of roles.
 */
export function createGuildNamesCheck(rest: REST, guildId: string): GuildNamesCheck {
  return {
    guildId,
    async exists(kind, wanted) {
      let items: { id: string; name?: string | null }[];
      try {
        items = (await rest.get(kind === 'role' ? Routes.guildRoles(guildId) : Routes.guildChannels(guildId))) as (APIRole | APIChannel)[];
      } catch {
        return null;
      }
      return items.some((item) => (SNOWFLAKE.test(wanted) ? item.id === wanted : item.name?.toLowerCase() === wanted.toLowerCase()));
    },
    async refusedRoles(configured) {
      let guild: APIGuild;
      let bot: APIGuildMember;
      try {
        const me = (await rest.get(Routes.user('@me'))) as APIUser;
        guild = (await rest.get(Routes.guild(guildId))) as APIGuild;
        bot = (await rest.get(Routes.guildMember(guildId, me.id))) as APIGuildMember;
      } catch {
        return null;
      }
      return roleSafetyProblems({
        guild: { guildId: guild.id, ownerId: guild.owner_id, roles: guild.roles },
        bot: { userId: bot.user.id, roleIds: bot.roles },
        configured,
      });
    },
  };
}
