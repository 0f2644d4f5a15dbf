import { DiscordAPIError } from '@discordjs/rest';
import { RESTJSONErrorCodes } from 'discord-api-types/v10';
import type { OutboxEntry } from '../../modules/outbox';

/**
 * A role change for someone Discord says is not in the server (Unknown Member: they left, or
 * were kicked or banned). No retry can change that, so it is no failure: the change is done with
 * nothing to do, and the logs channel says what happens next. The website joins them again
 * (its join carries the roles their record gives them: website-outcome.ts, joinRoles). Null for
 * anything else.
 */
export function absentMemberLine(entry: Pick<OutboxEntry, 'kind' | 'discordId'>, error: unknown): string | null {
  if (entry.kind !== 'update_roles' && entry.kind !== 'add_role' && entry.kind !== 'remove_role') return null;
  if (!(error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMember)) return null;
  return `ℹ️ <@${entry.discordId}> is not in the server, so their roles were not changed: they get the right roles when they rejoin through the website.`;
}
