import { DiscordAPIError } from '@discordjs/rest';
import { PermissionFlagsBits, Routes } from 'discord-api-types/v10';
import { silentLogger } from '../logger';
import { BOT_ROLE_PERMISSIONS } from './emulator/seed';
import { createDiscordEmulator, createEmulatorRest, type DiscordEmulator } from './emulator';
import { createBotSetupMonitor } from './bot-setup-monitor';

async function restError(promise: Promise<unknown>): Promise<{ status: number; code: number | string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DiscordAPIError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a Discord API error');
}

describe('the bot permission self-check against the emulator', () => {
  let emulator: DiscordEmulator;
  let monitor: ReturnType<typeof createBotSetupMonitor>;
  let rest: ReturnType<typeof createEmulatorRest>;
  let botRole: string;

  beforeEach(async () => {
    emulator = await createDiscordEmulator({ rateLimits: false });
    rest = createEmulatorRest(emulator);
    monitor = createBotSetupMonitor({
      rest,
      names: {
        guildId: emulator.guild.id,
        roles: { verified: 'Verified', limited: 'Limited Access', unverified: 'Unverified', staff: 'Staff' },
        verificationChannel: 'verification',
        logsChannel: 'logs',
      },
      certainAltAction: 'kick',
      logger: silentLogger,
    });
    botRole = emulator.state.memberRoles(emulator.application.botUserId)[0]!.id;
  });
  afterEach(() => emulator.close());

  it('the sandbox guild is set up right: nothing to report, and the bot posts in the staff-only #logs', async () => {
    expect(await monitor.run()).toMatchObject({ problems: [] });
    await rest.post(Routes.channelMessages(emulator.guild.channelId('logs')), { body: { content: 'hello staff' } });
  });

  it('missing View Channel on #logs: Discord answers 50001 Missing Access and the check names it', async () => {
    emulator.setChannelOverwrites('logs', [
      { role: '@everyone', deny: PermissionFlagsBits.ViewChannel },
      { role: 'Staff', allow: PermissionFlagsBits.ViewChannel },
    ]);
    expect(await restError(rest.post(Routes.channelMessages(emulator.guild.channelId('logs')), { body: { content: 'x' } }))).toEqual({ status: 403, code: 50001, message: 'Missing Access' });
    const report = await monitor.run();
    expect(report.problems.map((p) => p.problem)).toEqual(['In #logs the bot lacks "View Channel", "Send Messages".']);
  });

  it('Send Messages denied to the bot role in #verification: 50013 Missing Permissions', async () => {
    emulator.setChannelOverwrites('verification', [{ role: botRole, deny: PermissionFlagsBits.SendMessages }]);
    expect(await restError(rest.post(Routes.channelMessages(emulator.guild.channelId('verification')), { body: { content: 'x' } }))).toEqual({ status: 403, code: 50013, message: 'Missing Permissions' });
    expect((await monitor.run()).problems.map((p) => p.problem)).toEqual(['In #verification the bot lacks "Send Messages".']);
  });

  it('bot role below Verified: granting Verified fails and the check says to drag the bot role up', async () => {
    emulator.setRolePosition(botRole, 2);
    const member = emulator.state.findUserByName('sandbox-newcomer')!.id;
    emulator.addGuildMember(member);
    expect((await restError(rest.put(Routes.guildMemberRole(emulator.guild.id, member, emulator.guild.roleId('Verified'))))).code).toBe(50013);
    const problems = (await monitor.run()).problems;
    expect(problems.map((p) => p.problem)).toEqual([
      'The role "Verified" is above or level with the bot\'s highest role, so the bot cannot grant or remove it.',
      'The role "Limited Access" is above or level with the bot\'s highest role, so the bot cannot grant or remove it.',
    ]);
    expect(problems[0]!.fix).toBe('Server Settings → Roles: drag "Gatekeeper" above "Verified".');
  });

  it('missing Manage Roles is named with where to turn it on', async () => {
    emulator.setRolePermissions(botRole, BOT_ROLE_PERMISSIONS & ~PermissionFlagsBits.ManageRoles);
    const problems = (await monitor.run()).problems;
    expect(problems).toEqual([
      {
        problem: 'The bot lacks the server permission "Manage Roles".',
        fix: 'Server Settings → Roles → "Gatekeeper": turn on "Manage Roles" (or re-invite the bot with the invite link in the README).',
        area: 'server',
      },
    ]);
  });
});
