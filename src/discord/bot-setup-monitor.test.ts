import { DiscordAPIError } from '@discordjs/rest';
import { PermissionFlagsBits, Routes } from 'discord-api-types/v10';
import { createLogger, silentLogger } from '../logger';
import { createGuildDirectory } from './guild-directory';
import { guardRoles } from './outbox/role-guard';
import { BOT_ROLE_PERMISSIONS, createDiscordEmulator, createEmulatorRest, type DiscordEmulator } from '../discord-emulator';
import { createBotSetupMonitor, guildIconUrl } from './bot-setup-monitor';

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
    expect(await restError(rest.post(Routes.channelMessages(emulator.guild.channelId('logs')), { body: { content: 'x' } }))).toEqual({
      status: 403,
      code: 50001,
      message: 'Missing Access',
    });
    const report = await monitor.run();
    expect(report.problems.map((p) => p.problem)).toEqual(['In #logs the bot lacks "View Channel", "Send Messages".']);
  });

  it('Send Messages denied to the bot role in #verification: 50013 Missing Permissions', async () => {
    emulator.setChannelOverwrites('verification', [{ role: botRole, deny: PermissionFlagsBits.SendMessages }]);
    expect(
      await restError(rest.post(Routes.channelMessages(emulator.guild.channelId('verification')), { body: { content: 'x' } })),
    ).toEqual({ status: 403, code: 50013, message: 'Missing Permissions' });
    expect((await monitor.run()).problems.map((p) => p.problem)).toEqual(['In #verification the bot lacks "Send Messages".']);
  });

  it('bot role below Verified: granting Verified fails and the check says to drag the bot role up', async () => {
    emulator.setRolePosition(botRole, 2);
    const member = emulator.state.findUserByName('sandbox-newcomer')!.id;
    emulator.addGuildMember(member);
    expect((await restError(rest.put(Routes.guildMemberRole(emulator.guild.id, member, emulator.guild.roleId('Verified'))))).code).toBe(
      50013,
    );
    const problems = (await monitor.run()).problems;
    expect(problems.map((p) => p.problem)).toEqual([
      'The role "Verified" is above or level with the bot\'s highest role, so the bot cannot grant or remove it.',
      'The role "Limited Access" is above or level with the bot\'s highest role, so the bot cannot grant or remove it.',
    ]);
    expect(problems[0]!.fix).toBe('Server Settings → Roles: drag "Gatekeeper" above "Verified".');
  });

  it('a refused role choice: one plain line at start naming the problem, the fix and what waits; its role is never resolved for a change', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    const names = {
      guildId: emulator.guild.id,
      roles: { verified: 'Verified', limited: 'Limited Access', unverified: 'Unverified', staff: 'Verified' },
      verificationChannel: 'verification',
      logsChannel: 'logs',
    };
    const watched = createBotSetupMonitor({ rest, names, certainAltAction: 'kick', logger });
    emulator.setRolePermissions(emulator.guild.roleId('Verified'), PermissionFlagsBits.Administrator);
    const report = await watched.run();
    expect(report.problems.map((p) => p.problem)).toEqual([
      'The Verified role "Verified" carries "Administrator": everyone Gatekeeper gives it would hold it.',
      'The role "Verified" is chosen as both the Verified role and the Staff role.',
    ]);
    expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([
      'Role configuration refused: The Verified role "Verified" carries "Administrator": everyone Gatekeeper gives it would hold it. Fix: Server Settings → Roles → "Verified": turn off "Administrator", or set the Verified role setting (dashboard Settings, or DISCORD_VERIFIED_ROLE) to a role without them. Until then Gatekeeper gives and takes no Verified role (those role changes wait in the outbox).',
      'Role configuration refused: The role "Verified" is chosen as both the Verified role and the Staff role. Fix: Give each its own role: choose another role for the Verified role or the Staff role (dashboard Settings, or DISCORD_VERIFIED_ROLE / DISCORD_STAFF_ROLE). Until then Gatekeeper gives and takes no Verified role (those role changes wait in the outbox).',
    ]);
    const directory = guardRoles(createGuildDirectory(rest, names), () => watched.refusedRoles());
    await expect(directory.roleId('verified')).rejects.toThrow(
      'Role configuration refused: The Verified role "Verified" carries "Administrator"',
    );
    await expect(directory.roleId('staff')).rejects.toThrow('chosen as both the Verified role and the Staff role');
    expect(await directory.roleId('unverified')).toBe(emulator.guild.roleId('Unverified'));
    // fixed in the server: the next check lets it through
    emulator.setRolePermissions(emulator.guild.roleId('Verified'), 0n);
    names.roles.staff = 'Staff';
    await watched.run();
    expect(await directory.roleId('verified')).toBe(emulator.guild.roleId('Verified'));
  });

  it('a check asked for while one is under way reads the guild again (the fix made meanwhile is seen); a report asked for joins it', async () => {
    emulator.setChannelOverwrites('logs', [{ role: botRole, deny: PermissionFlagsBits.SendMessages }]);
    // the first check stops at its last read (the bot's member), after it has read the channels
    let reachedMember!: () => void;
    const atMember = new Promise<void>((resolve) => (reachedMember = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const get = rest.get.bind(rest);
    const spy = jest.spyOn(rest, 'get').mockImplementation(async (route, options) => {
      if (route === Routes.guildMember(emulator.guild.id, emulator.application.botUserId) && spy.mock.calls.length < 5) {
        reachedMember();
        await released;
      }
      return get(route, options);
    });
    const before = monitor.run();
    await atMember;
    emulator.setChannelOverwrites('logs', []); // the owner gives the permission back
    const after = monitor.run();
    // a page or a role change asking for a report no older than a minute joins the check under way
    const joined = monitor.current();
    release();
    expect((await before).problems.map((p) => p.problem)).toEqual(['In #logs the bot lacks "Send Messages".']);
    expect(await joined).toBe(await before);
    expect((await after).problems).toEqual([]);
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

describe("the server's name and icon for the visitor pages", () => {
  it('builds the CDN address of a still or animated icon, and none without one', () => {
    expect(guildIconUrl({ id: '42', icon: 'abc' })).toBe('https://cdn.discordapp.com/icons/42/abc.png?size=128');
    expect(guildIconUrl({ id: '42', icon: 'a_abc' })).toBe('https://cdn.discordapp.com/icons/42/a_abc.gif?size=128');
    expect(guildIconUrl({ id: '42', icon: null })).toBeNull();
  });

  it('reads the name once, then answers from what it read while a check is fresh', async () => {
    const emulator = await createDiscordEmulator({ rateLimits: false });
    try {
      const rest = createEmulatorRest(emulator);
      const names = {
        guildId: emulator.guild.id,
        roles: { verified: 'Verified', limited: 'Limited Access', unverified: 'Unverified', staff: 'Staff' },
        verificationChannel: 'verification',
        logsChannel: 'logs',
      };
      const monitor = createBotSetupMonitor({ rest, names, certainAltAction: 'none', logger: silentLogger });
      const get = jest.spyOn(rest, 'get');
      expect(await monitor.identity()).toEqual({ name: emulator.state.guild.name, iconUrl: null });
      const calls = get.mock.calls.length;
      expect(await monitor.identity()).toEqual({ name: emulator.state.guild.name, iconUrl: null });
      expect(get.mock.calls.length).toBe(calls);
    } finally {
      await emulator.close();
    }
  });

  it('answers null, without waiting long, when Discord cannot be read', async () => {
    const rest = { get: () => Promise.reject(new Error('Discord is down')) } as unknown as ReturnType<typeof createEmulatorRest>;
    const names = {
      guildId: '1',
      roles: { verified: 'Verified', limited: 'Limited Access', unverified: 'Unverified', staff: 'Staff' },
      verificationChannel: 'verification',
      logsChannel: 'logs',
    };
    const monitor = createBotSetupMonitor({ rest, names, certainAltAction: 'none', logger: silentLogger });
    expect(await monitor.identity()).toBeNull();
  });
});
