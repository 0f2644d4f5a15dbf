import { NotFound, ServiceUnavailable } from '../../errors';
import { validate } from '../middleware/validate';
import { discordIdParams } from './admin-members.schema';
import { validated, type StaffRoute } from './staff-route-table';

/** Port: reads a Discord user through the bot's REST client (wired in when the server is assembled). */
export interface DiscordUserLookup {
  /** null when Discord has no such user; throws when Discord cannot be reached */
  fetchUser(discordId: string): Promise<{ username: string; avatarUrl: string | null } | null>;
}

export const DISCORD_UNREACHABLE = 'Discord is unreachable, try again later';

/** The Manual Entry page's fetch button (docs/behaviour.md#staff-screens). */
export function discordUserRoutes(deps: { discordUsers: DiscordUserLookup }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/discord/user/:discordId',
      access: 'staff',
      handlers: [
        validate(discordIdParams, 'params'),
        async (req, res) => {
          const { discordId } = validated(req, discordIdParams, 'params');
          let user: Awaited<ReturnType<DiscordUserLookup['fetchUser']>>;
          try {
            user = await deps.discordUsers.fetchUser(discordId);
          } catch {
            throw ServiceUnavailable(DISCORD_UNREACHABLE);
          }
          if (!user) throw NotFound('Discord user');
          res.json({ username: user.username, avatarUrl: user.avatarUrl });
        },
      ],
    },
  ];
}
