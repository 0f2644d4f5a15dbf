import { DiscordAPIError } from '@discordjs/rest';
import { RESTJSONErrorCodes } from 'discord-api-types/v10';
import { absentMemberLine } from './absent-member';

const discordError = (status: number, code: number) =>
  new DiscordAPIError({ code, message: 'x' }, code, status, 'PATCH', '/guilds/1/members/2', { body: undefined, files: undefined });

describe('absentMemberLine: a role change for someone not in the server is no failure', () => {
  const unknownMember = discordError(404, RESTJSONErrorCodes.UnknownMember);
  it.each(['update_roles', 'add_role', 'remove_role'] as const)('%s meeting Unknown Member says what happens next', (kind) => {
    expect(absentMemberLine({ kind, discordId: '42' }, unknownMember)).toBe(
      'ℹ️ <@42> is not in the server, so their roles were not changed: they get the right roles when they rejoin through the website.',
    );
  });
  it('anything else stays a failure', () => {
    expect(absentMemberLine({ kind: 'kick', discordId: '42' }, unknownMember)).toBeNull();
    expect(
      absentMemberLine({ kind: 'update_roles', discordId: '42' }, discordError(403, RESTJSONErrorCodes.MissingPermissions)),
    ).toBeNull();
    expect(absentMemberLine({ kind: 'update_roles', discordId: '42' }, new Error('network'))).toBeNull();
  });
});
