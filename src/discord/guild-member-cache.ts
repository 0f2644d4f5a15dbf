/**
 * What the bot last saw of members of the guild: who is in it and with which roles. It
 * learns from the gateway (every interaction carries the clicking member and their roles;
 * member add, update and remove events when Discord sends them) and from the outbox's own
 * answers (a join returns the member; a role change is known once Discord accepted it).
 * The outbox reads it to skip calls: no Add Guild Member for a user known to be in the
 * guild, no read before a role change whose starting roles are known.
 *
 * It is a hint, never the truth: an entry older than `maxAgeMs` is not used (someone may
 * have changed the roles by hand since; Discord only reports that to bots with the
 * privileged members intent), and a user who left since is noticed by Discord's answer
 * (Unknown Member), after which the outbox does the full call. It lives in memory: the
 * bot and the outbox share it when they run in one process; otherwise the outbox finds it
 * empty and makes the calls it always made.
 */
export interface GuildMemberCache {
  /** the member is in the guild with exactly these roles (the guild's @everyone role is not listed) */
  remember(userId: string, roles: readonly string[]): void;
  /** the member has left, was kicked or banned, or what we knew is no longer complete */
  forget(userId: string): void;
  /** the member's roles when they were seen in the guild recently enough to rely on, else undefined */
  roles(userId: string): readonly string[] | undefined;
}

/** How long a sighting is relied on: a button click is followed by its role change within seconds, a raid's queue within minutes. */
export const GUILD_MEMBER_CACHE_MAX_AGE_MS = 15 * 60 * 1000;
/** Entries kept at most (oldest sighting goes first): a few MB even at the cap. */
const MAX_ENTRIES = 50_000;

export function createGuildMemberCache(options: { maxAgeMs?: number; maxEntries?: number; now?: () => number } = {}): GuildMemberCache {
  const maxAgeMs = options.maxAgeMs ?? GUILD_MEMBER_CACHE_MAX_AGE_MS;
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const now = options.now ?? Date.now;
  // a Map keeps insertion order: deleting before setting moves a sighting to the end
  const entries = new Map<string, { roles: readonly string[]; at: number }>();

  return {
    remember(userId, roles) {
      entries.delete(userId);
      entries.set(userId, { roles: [...new Set(roles)], at: now() });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    forget(userId) {
      entries.delete(userId);
    },
    roles(userId) {
      const entry = entries.get(userId);
      if (!entry) return undefined;
      if (now() - entry.at > maxAgeMs) {
        entries.delete(userId);
        return undefined;
      }
      return entry.roles;
    },
  };
}

/**
 * Feeds the cache from one raw gateway event of our guild: an interaction's member, a
 * member added or updated (roles), a member removed. Other events are ignored.
 */
export function learnFromGatewayEvent(cache: GuildMemberCache, packet: { t?: string | null; d?: unknown }): void {
  const d = packet.d as { member?: { user?: { id?: string }; roles?: unknown }; user?: { id?: string }; roles?: unknown } | undefined;
  if (!d) return;
  const rolesOf = (value: unknown) =>
    Array.isArray(value) && value.every((id) => typeof id === 'string') ? (value as string[]) : undefined;
  switch (packet.t) {
    case 'INTERACTION_CREATE': {
      const userId = d.member?.user?.id;
      const roles = rolesOf(d.member?.roles);
      if (userId && roles) cache.remember(userId, roles);
      return;
    }
    case 'GUILD_MEMBER_ADD':
    case 'GUILD_MEMBER_UPDATE': {
      const roles = rolesOf(d.roles);
      if (d.user?.id && roles) cache.remember(d.user.id, roles);
      return;
    }
    case 'GUILD_MEMBER_REMOVE':
      if (d.user?.id) cache.forget(d.user.id);
      return;
  }
}
