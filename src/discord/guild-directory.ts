import type { REST } from '@discordjs/rest';
import { Routes, type APIChannel, type APIGuild, type APIRole, type APIUser } from 'discord-api-types/v10';
import type { ManagedRole } from '../modules/outbox';
import { avatarUrlOf } from './oauth-client';

export interface GuildNames {
  guildId: string;
  roles: Record<ManagedRole | 'staff', string>;
  verificationChannel: string;
  logsChannel: string;
}

/** A configured role that the guild does not have (deleted in Discord, or renamed). */
export class RoleMissingError extends Error {
  constructor(
    readonly role: ManagedRole | 'staff',
    readonly configured: string,
    guildId: string,
  ) {
    super(`The role '${configured}' does not exist in guild ${guildId}`);
    this.name = 'RoleMissingError';
  }
}

const SNOWFLAKE = /^\d{15,21}$/;
const CACHE_MS = 5 * 60 * 1000;

/** A role or channel configured by id (a snowflake) or by name (case-insensitive). */
export function findByNameOrId<T extends { id: string; name?: string | null }>(items: readonly T[], wanted: string): T | undefined {
  return items.find((item) => (SNOWFLAKE.test(wanted) ? item.id === wanted : item.name?.toLowerCase() === wanted.toLowerCase()));
}

/**
 * Resolves the configured role and channel names (or ids) to the guild's ids through
 * REST, cached for a few minutes. Used by the outbox worker, the bot and the web role.
 */
export function createGuildDirectory(rest: REST, names: GuildNames) {
  let cache: { at: number; roles: APIRole[]; channels: APIChannel[] } | undefined;
  let loading: Promise<NonNullable<typeof cache>> | undefined;

  /** One load at a time: concurrent callers share it (parallel first calls would meet a 429). */
  function load(force = false): Promise<NonNullable<typeof cache>> {
    if (!force && cache && Date.now() - cache.at < CACHE_MS) return Promise.resolve(cache);
    loading ??= (async () => {
      try {
        const roles = (await rest.get(Routes.guildRoles(names.guildId))) as APIRole[];
        const channels = (await rest.get(Routes.guildChannels(names.guildId))) as APIChannel[];
        cache = { at: Date.now(), roles, channels };
        return cache;
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  }

  async function find<T extends { id: string; name?: string | null }>(
    pick: (c: NonNullable<typeof cache>) => T[],
    wanted: string,
    what: string,
  ): Promise<string> {
    let hit = findByNameOrId(pick(await load()), wanted);
    if (!hit) hit = findByNameOrId(pick(await load(true)), wanted);
    if (!hit) throw new Error(`The ${what} '${wanted}' does not exist in guild ${names.guildId}`);
    return hit.id;
  }

  return {
    guildId: names.guildId,
    async roleId(role: ManagedRole | 'staff'): Promise<string> {
      try {
        return await find((c) => c.roles, names.roles[role], 'role');
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('The role '))
          throw new RoleMissingError(role, names.roles[role], names.guildId);
        throw error;
      }
    },
    /** Drops what was read of the guild's roles and channels (Discord said one is gone): the next lookup reads them again. */
    forget(): void {
      cache = undefined;
    },
    channelId: (which: 'verification' | 'logs') =>
      find(
        (c) => c.channels as (APIChannel & { name?: string | null })[],
        which === 'verification' ? names.verificationChannel : names.logsChannel,
        'channel',
      ),
    async guild(): Promise<APIGuild> {
      return (await rest.get(Routes.guild(names.guildId))) as APIGuild;
    },
    /** A Discord user by id, for manual entry; null when Discord knows no such user. */
    async fetchUser(discordId: string): Promise<{ username: string; avatarUrl: string | null } | null> {
      try {
        const user = (await rest.get(Routes.user(discordId))) as APIUser;
        return { username: user.username, avatarUrl: avatarUrlOf(user) };
      } catch (error) {
        if ((error as { status?: number }).status === 404) return null;
        throw error;
      }
    },
  };
}

export type GuildDirectory = ReturnType<typeof createGuildDirectory>;
