import type { REST } from '@discordjs/rest';
import { Routes, type APIChannel, type APIRole } from 'discord-api-types/v10';
import type { GuildNamesCheck } from './settings.service';

const SNOWFLAKE = /^\d{15,21}$/;

/**
 * Whether a role or channel given by name (case-insensitive) or id exists in the
 * server, asked of Discord at the moment a setting changes. When Discord cannot be
 * asked the answer is "unknown" and the change is not refused for it.
 */
export function createGuildNamesCheck(rest: REST, guildId: string): GuildNamesCheck {
  return {
    async exists(kind, wanted) {
      let items: { id: string; name?: string | null }[];
      try {
        items = (await rest.get(kind === 'role' ? Routes.guildRoles(guildId) : Routes.guildChannels(guildId))) as (APIRole | APIChannel)[];
      } catch {
        return null;
      }
      return items.some((item) => (SNOWFLAKE.test(wanted) ? item.id === wanted : item.name?.toLowerCase() === wanted.toLowerCase()));
    },
  };
}
