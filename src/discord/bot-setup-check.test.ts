import fs from 'node:fs';
import path from 'node:path';
import { OverwriteType, PermissionFlagsBits, type APIOverwrite } from 'discord-api-types/v10';
import { checkBotSetup, INVITE_PERMISSIONS, type SetupCheckInput } from './bot-setup-check';
import { BOT, GUILD, OWNER, role } from '../test-support/discord-roles';

const P = PermissionFlagsBits;

const overwrite = (id: string, type: OverwriteType, allow: bigint, deny: bigint): APIOverwrite => ({
  id,
  type,
  allow: String(allow),
  deny: String(deny),
});

const BOT_PERMISSIONS =
  P.ViewChannel |
  P.SendMessages |
  P.EmbedLinks |
  P.ReadMessageHistory |
  P.ManageRoles |
  P.CreateInstantInvite |
  P.KickMembers |
  P.BanMembers;

/** A server set up as the README says: #logs hidden from @everyone and shown to Staff and the bot. */
function wellSetUp(): SetupCheckInput {
  const roles = [
    role(GUILD, '@everyone', 0, P.ViewChannel | P.SendMessages | P.ReadMessageHistory),
    role('11', 'Unverified', 1),
    role('12', 'Limited Access', 2),
    role('13', 'Verified', 3),
    role('14', 'Staff', 4),
    role('15', 'Gatekeeper', 5, BOT_PERMISSIONS, true),
  ];
  return {
    guild: { guildId: GUILD, ownerId: OWNER, roles },
    bot: { userId: BOT, roleIds: ['15'], name: 'Gatekeeper' },
    channels: {
      verification: { configured: 'verification', found: { id: '21', name: 'verification', permission_overwrites: [] } },
      logs: {
        configured: 'logs',
        found: {
          id: '22',
          name: 'logs',
          permission_overwrites: [
            overwrite(GUILD, OverwriteType.Role, 0n, P.ViewChannel),
            overwrite('14', OverwriteType.Role, P.ViewChannel, 0n),
            overwrite('15', OverwriteType.Role, P.ViewChannel, 0n),
          ],
        },
      },
    },
    roles: {
      unverified: { configured: 'Unverified', found: roles[1] },
      limited: { configured: 'Limited Access', found: roles[2] },
      verified: { configured: 'Verified', found: roles[3] },
    },
    certainAltAction: 'ban',
  };
}

describe('checkBotSetup', () => {
  it('reports nothing for a correctly set up server', () => {
    expect(checkBotSetup(wellSetUp())).toEqual([]);
  });

  it('names View Channel on #logs when the staff-only overwrite leaves the bot out', () => {
    const input = wellSetUp();
    input.channels.logs.found!.permission_overwrites = input.channels.logs.found!.permission_overwrites!.filter((o) => o.id !== '15');
    const problems = checkBotSetup(input);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.problem).toBe('In #logs the bot lacks "View Channel", "Send Messages".');
    expect(problems[0]!.fix).toContain('Edit #logs → Permissions: add the role "Gatekeeper"');
  });

  it('a member overwrite for the bot beats a role deny; a role allow beats another role deny', () => {
    const input = wellSetUp();
    const logs = input.channels.logs.found!;
    logs.permission_overwrites = [
      overwrite(GUILD, OverwriteType.Role, 0n, P.ViewChannel),
      overwrite(BOT, OverwriteType.Member, P.ViewChannel, 0n),
    ];
    expect(checkBotSetup(input)).toEqual([]);
    logs.permission_overwrites = [
      overwrite(GUILD, OverwriteType.Role, 0n, P.ViewChannel),
      overwrite('15', OverwriteType.Role, 0n, P.SendMessages),
      overwrite(BOT, OverwriteType.Member, 0n, P.ViewChannel),
    ];
    expect(checkBotSetup(input)[0]!.problem).toBe('In #logs the bot lacks "View Channel", "Send Messages".');
  });

  it('names the role the bot sits below', () => {
    const input = wellSetUp();
    input.guild.roles.find((r) => r.name === 'Verified')!.position = 6;
    const problems = checkBotSetup(input);
    expect(problems.map((p) => p.problem)).toEqual([
      'The role "Verified" is above or level with the bot\'s highest role, so the bot cannot grant or remove it.',
    ]);
    expect(problems[0]!.fix).toBe('Server Settings → Roles: drag "Gatekeeper" above "Verified".');
  });

  it('names the role choices Gatekeeper refuses, with their fix: a Verified role with Administrator, Staff chosen as Verified', () => {
    const input = wellSetUp();
    input.guild.roles = input.guild.roles.map((r) => (r.name === 'Verified' ? { ...r, permissions: String(P.Administrator) } : r));
    input.roles.verified.found = input.guild.roles.find((r) => r.name === 'Verified');
    input.roles.staff = { configured: 'verified' };
    expect(checkBotSetup(input).map((p) => p.problem)).toEqual([
      'The Verified role "Verified" carries "Administrator": everyone Gatekeeper gives it would hold it.',
      'The role "Verified" is chosen as both the Verified role and the Staff role.',
    ]);
  });

  it('names a missing Manage Roles, and Ban Members only when CERTAIN_ALT_ACTION bans', () => {
    const input = wellSetUp();
    const bot = input.guild.roles.find((r) => r.id === '15')!;
    bot.permissions = String(BOT_PERMISSIONS & ~P.ManageRoles & ~P.BanMembers);
    expect(checkBotSetup(input).map((p) => p.problem)).toEqual(['The bot lacks the server permissions "Ban Members", "Manage Roles".']);
    expect(checkBotSetup({ ...input, certainAltAction: 'none' }).map((p) => p.problem)).toEqual([
      'The bot lacks the server permission "Manage Roles".',
    ]);
  });

  it('Administrator short-circuits every overwrite', () => {
    const input = wellSetUp();
    input.guild.roles.find((r) => r.id === '15')!.permissions = String(P.Administrator);
    input.channels.logs.found!.permission_overwrites = [overwrite('15', OverwriteType.Role, 0n, P.ViewChannel)];
    expect(checkBotSetup(input)).toEqual([]);
  });

  it('names a configured channel or role that does not exist with the setting to change', () => {
    const input = wellSetUp();
    input.channels.verification = { configured: 'verify-here', found: undefined };
    input.roles.verified = { configured: 'Members', found: undefined };
    expect(checkBotSetup(input).map((p) => p.fix)).toEqual([
      "Create #verify-here, or set DISCORD_VERIFICATION_CHANNEL to an existing channel's name or id.",
      'Set the Verified role setting (dashboard Settings, or DISCORD_VERIFIED_ROLE) to an existing role, or create a role named "Members" again.',
    ]);
    expect(checkBotSetup(input)[1]!.problem).toBe(
      'The Verified role "Members" does not exist in Discord (deleted or renamed): Gatekeeper cannot give or take it.',
    );
  });
});

describe('README', () => {
  it('invites the bot with exactly the permissions the self-check requires', () => {
    const readme = fs.readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
    const integers = [...readme.matchAll(/[?&]permissions=(\d+)/g)].map((m) => m[1]);
    expect(integers.length).toBeGreaterThan(0);
    for (const value of integers) expect(BigInt(value!)).toBe(INVITE_PERMISSIONS);
    expect(String(INVITE_PERMISSIONS)).toBe('268520487');
  });
});
