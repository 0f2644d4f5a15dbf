import { parseEnv } from '../../env';
import { createDiscordEmulator, type DiscordEmulator } from '../../discord-emulator';
import { deployCommands } from './deploy-commands';
import { COMMANDS } from './definitions';

describe('deployCommands (npm run deploy-commands)', () => {
  let emulator: DiscordEmulator;
  beforeAll(async () => {
    emulator = await createDiscordEmulator({ seed: 'empty' });
  });
  afterAll(async () => emulator?.close());

  it('says that sandbox mode registers the commands at start-up, and registers nothing', async () => {
    const lines: string[] = [];
    expect(await deployCommands(parseEnv({}), (line) => lines.push(line))).toBe(0);
    expect(lines).toEqual([
      'gatekeeper: sandbox mode (no DISCORD_BOT_TOKEN): slash commands are registered automatically with the emulator at start-up; nothing to deploy.',
    ]);
    expect(emulator.state.guildCommands.get(emulator.guild.id) ?? []).toEqual([]);
  });

  it('registers every command for the configured guild with the bot token', async () => {
    const env = parseEnv({
      DISCORD_BOT_TOKEN: emulator.application.botToken,
      DISCORD_CLIENT_ID: emulator.application.clientId,
      DISCORD_CLIENT_SECRET: emulator.application.clientSecret,
      DISCORD_GUILD_ID: emulator.guild.id,
      DISCORD_API_URL: emulator.apiBase,
      PUBLIC_URL: 'http://127.0.0.1',
    });
    const lines: string[] = [];
    expect(await deployCommands(env, (line) => lines.push(line))).toBe(COMMANDS.length);
    expect(lines).toEqual([`gatekeeper: ${COMMANDS.length} slash command(s) registered for guild ${emulator.guild.id}.`]);
    const registered = emulator.state.guildCommands.get(emulator.guild.id) ?? [];
    expect(registered.map((c) => c.name).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
    expect(registered.find((c) => c.name === 'privacy')?.default_member_permissions ?? null).toBeNull();
    expect(registered.find((c) => c.name === 'lookup')?.default_member_permissions).toBe('32');
    // server only, said the way Discord documents now: `contexts`, not the deprecated dm_permission
    for (const command of registered) expect(command).toMatchObject({ contexts: [0], dm_permission: false });
  });

  it('no definition sends the deprecated dm_permission; each is usable in the server only (contexts [0])', () => {
    for (const command of COMMANDS) {
      expect(command).not.toHaveProperty('dm_permission');
      expect(command.contexts).toEqual([0]);
    }
  });

  it('fails loudly when Discord rejects the token', async () => {
    const env = parseEnv({
      DISCORD_BOT_TOKEN: 'not-a-token',
      DISCORD_CLIENT_ID: emulator.application.clientId,
      DISCORD_CLIENT_SECRET: emulator.application.clientSecret,
      DISCORD_GUILD_ID: emulator.guild.id,
      DISCORD_API_URL: emulator.apiBase,
      PUBLIC_URL: 'http://127.0.0.1',
    });
    await expect(deployCommands(env, () => undefined)).rejects.toThrow();
  });
});
