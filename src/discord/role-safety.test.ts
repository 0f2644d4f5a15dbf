import { PermissionFlagsBits, type APIRole } from 'discord-api-types/v10';
import { roleSafetyProblems, type RoleSafetyInput, type RoleSlot } from './role-safety';
import { BOT, GUILD, OWNER, role } from '../test-support/discord-roles';

const P = PermissionFlagsBits;
const VERIFIED_ID = '130000000000000000';

/** The README's server: Unverified < Limited Access < Verified < Staff < the bot's role. */
function server(change: (roles: APIRole[]) => void = () => undefined, configured: Partial<Record<RoleSlot, string>> = {}): RoleSafetyInput {
  const roles = [
    role(GUILD, '@everyone', 0, P.ViewChannel | P.SendMessages),
    role('11', 'Unverified', 1),
    role('12', 'Limited Access', 2),
    role(VERIFIED_ID, 'Verified', 3, P.ViewChannel | P.SendMessages | P.AddReactions),
    role('14', 'Staff', 4, P.Administrator),
    role('15', 'Gatekeeper', 6, P.ManageRoles, true),
    role('16', 'Other Bot', 5, P.SendMessages, true),
    role('17', 'Owners', 9, 0n),
  ];
  change(roles);
  return {
    guild: { guildId: GUILD, ownerId: OWNER, roles },
    bot: { userId: BOT, roleIds: ['15'], name: 'Gatekeeper' },
    configured: { verified: 'Verified', limited: 'Limited Access', unverified: 'Unverified', staff: 'Staff', ...configured },
  };
}
const perms = (name: string, permissions: bigint) => (roles: APIRole[]) => {
  const index = roles.findIndex((r) => r.name === name);
  roles[index] = { ...roles[index]!, permissions: String(permissions) };
};

describe('roleSafetyProblems: the role choices Gatekeeper refuses', () => {
  it('accepts the README set-up (Staff may carry Administrator and sit above the bot)', () => {
    expect(roleSafetyProblems(server())).toEqual([]);
    expect(roleSafetyProblems(server(perms('Staff', P.Administrator), { staff: 'Owners' }))).toEqual([]);
  });

  it.each<[string, RoleSafetyInput, RoleSlot[][], string]>([
    [
      'Verified carries Administrator',
      server(perms('Verified', P.Administrator)),
      [['verified']],
      'The Verified role "Verified" carries "Administrator": everyone Gatekeeper gives it would hold it.',
    ],
    [
      'Limited Access carries Ban Members and Kick Members',
      server(perms('Limited Access', P.BanMembers | P.KickMembers)),
      [['limited']],
      'The Limited Access role "Limited Access" carries "Kick Members", "Ban Members": everyone Gatekeeper gives it would hold them.',
    ],
    ...(
      [
        ['Manage Server', P.ManageGuild],
        ['Manage Roles', P.ManageRoles],
        ['Manage Channels', P.ManageChannels],
        ['Manage Webhooks', P.ManageWebhooks],
        ['Manage Messages', P.ManageMessages],
        ['Moderate Members', P.ModerateMembers],
        ['Mention Everyone', P.MentionEveryone],
      ] as const
    ).map(([name, bit]): [string, RoleSafetyInput, RoleSlot[][], string] => [
      `Unverified carries ${name}`,
      server(perms('Unverified', bit)),
      [['unverified']],
      `The Unverified role "Unverified" carries "${name}": everyone Gatekeeper gives it would hold it.`,
    ]),
    [
      'Verified is @everyone (by name)',
      server(undefined, { verified: '@everyone' }),
      [['verified']],
      'The Verified role is @everyone: every member holds it already, so it cannot be given or taken.',
    ],
    [
      'Unverified is @everyone (by id)',
      server(undefined, { unverified: GUILD }),
      [['unverified']],
      'The Unverified role is @everyone: every member holds it already, so it cannot be given or taken.',
    ],
    [
      'Staff is @everyone',
      server(undefined, { staff: '@everyone' }),
      [['staff']],
      'The Staff role is @everyone: every member would be staff.',
    ],
    [
      "Verified is a bot's managed role",
      server(undefined, { verified: 'Other Bot' }),
      [['verified']],
      'The Verified role "Other Bot" is managed by an integration or a bot: nobody can give it.',
    ],
    [
      'Limited Access sits above the bot',
      server(undefined, { limited: 'Owners' }),
      [['limited']],
      'The role "Owners" is above or level with the bot\'s highest role, so the bot cannot grant or remove it.',
    ],
    [
      'Staff chosen as Verified',
      server(undefined, { verified: 'Staff' }),
      [['verified'], ['verified', 'staff']],
      'The role "Staff" is chosen as both the Verified role and the Staff role.',
    ],
    [
      'Verified chosen as Staff, once by id and once by name',
      server(undefined, { staff: VERIFIED_ID }),
      [['verified', 'staff']],
      'The role "Verified" is chosen as both the Verified role and the Staff role.',
    ],
    [
      'Verified and Unverified one role',
      server(undefined, { unverified: 'verified' }),
      [['verified', 'unverified']],
      'The role "Verified" is chosen as both the Verified role and the Unverified role.',
    ],
    [
      'Limited Access and Staff one role that the server lacks (names compared)',
      server(undefined, { limited: 'Mods', staff: 'mods ' }),
      [['limited', 'staff']],
      'The role "Mods" is chosen as both the Limited Access role and the Staff role.',
    ],
  ])('refuses: %s', (_name, input, slots, lastProblem) => {
    const problems = roleSafetyProblems(input);
    expect(problems.map((p) => p.slots)).toEqual(slots);
    expect(problems.at(-1)!.problem).toBe(lastProblem);
    for (const p of problems) expect(p.fix).toMatch(/Server Settings|Set the|Give each its own role/);
  });

  it('names the fix: the permission to turn off, or the setting to change', () => {
    const [dangerous] = roleSafetyProblems(server(perms('Verified', P.Administrator)));
    expect(dangerous!.fix).toBe(
      'Server Settings → Roles → "Verified": turn off "Administrator", or set the Verified role setting (dashboard Settings, or DISCORD_VERIFIED_ROLE) to a role without them.',
    );
    const [twice] = roleSafetyProblems(server(undefined, { staff: 'Verified' }));
    expect(twice!.fix).toBe(
      'Give each its own role: choose another role for the Verified role or the Staff role (dashboard Settings, or DISCORD_VERIFIED_ROLE / DISCORD_STAFF_ROLE).',
    );
  });

  it('leaves out the hierarchy when the bot is unknown or owns the server', () => {
    expect(roleSafetyProblems({ ...server(undefined, { limited: 'Owners' }), bot: null })).toEqual([]);
    const owned = server(undefined, { limited: 'Owners' });
    expect(roleSafetyProblems({ ...owned, guild: { ...owned.guild, ownerId: BOT } })).toEqual([]);
  });
});
