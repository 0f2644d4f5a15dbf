import { Client, PermissionFlagsBits, Routes } from 'discord.js';
import { silentLogger } from '../logger';
import { BotTokenRejectedError } from './bot-token-health';
import { createDiscordGuard, type DiscordGuard } from './discord-guard';
import { guardGatewayClientRest } from './discord-rest';
import { createDiscordEmulator, type DiscordEmulator } from '../discord-emulator';

/**
 * The gateway client (discord.js's Client) sends interaction replies and whatever else
 * discord.js calls through a REST client of its own: those answers count toward Discord's
 * invalid request limit like the bot's other calls, and its calls wait on the same gate.
 */
describe("the gateway client's REST calls", () => {
  let emulator: DiscordEmulator;
  let guard: DiscordGuard;
  let client: Client;

  async function start(invalidLimit: { limit: number; windowMs: number }) {
    emulator = await createDiscordEmulator({});
    guard = createDiscordGuard({ apiBase: emulator.apiBase, botToken: emulator.application.botToken, logger: silentLogger, invalidLimit });
    client = new Client({ intents: [], rest: { api: emulator.apiBase } });
    guardGatewayClientRest(client, guard, emulator.application.botToken);
    // what login() does first; no gateway is needed for REST
    client.rest.setToken(emulator.application.botToken);
  }

  afterEach(async () => {
    guard?.token.stop();
    await client?.destroy();
    await emulator?.close();
  });

  it('count every 401, 403 and counted 429 by route family, and a 401 to the bot token stops the next calls unsent', async () => {
    await start({ limit: 10_000, windowMs: 60_000 });
    const closed = emulator.createChannel('closed');
    emulator.setChannelOverwrites(closed.id, [{ userId: emulator.application.botUserId, deny: PermissionFlagsBits.SendMessages }]);
    await expect(client.rest.post(Routes.channelMessages(closed.id), { body: { content: 'a log line' } })).rejects.toMatchObject({
      status: 403,
    });

    const memberId = emulator.createUser({ username: 'someone' }).id;
    emulator.addGuildMember(memberId);
    const botRole = emulator.state.memberRoles(emulator.application.botUserId)[0]!.id;
    await expect(client.rest.put(Routes.guildMemberRole(emulator.guild.id, memberId, botRole))).rejects.toMatchObject({ status: 403 });

    // a 429 of scope `shared` is not counted by Discord, nor here
    emulator.faults.set('rate429', { routes: /\/channels\/\d+$/, count: 1, retryAfterSeconds: 0.05 });
    await client.rest.get(Routes.channel(closed.id));
    expect(emulator.faults.injected.rate429).toBe(1);

    emulator.faults.revokeBotToken();
    await expect(
      client.rest.put(Routes.applicationGuildCommands(emulator.application.id, emulator.guild.id), { body: [] }),
    ).rejects.toMatchObject({ status: 401 });
    expect(guard.token.rejected).toBe(true);
    const sent = emulator.state.requestLog.length;
    await expect(client.rest.get(Routes.channel(closed.id))).rejects.toBeInstanceOf(BotTokenRejectedError);
    expect(emulator.state.requestLog.length).toBe(sent);

    const { total, byFamily } = guard.invalid.snapshot();
    expect(byFamily).toMatchObject({ messages: 1, 'member-roles': 1, other: 1, interactions: 0 });
    expect(total).toBe(3);
  });

  it('hold a log message while the budget is paused, and send essential calls at the widest spacing', async () => {
    // 20 invalid answers per 1.5 s: paused from 10, the widest spacing 1.5 s / (20 × 0.25) = 300 ms
    await start({ limit: 20, windowMs: 1500 });
    const channelId = emulator.guild.channelId('verification');
    for (let i = 0; i < 10; i++) guard.invalid.record('guild-members', 403);
    const recordedAt = Date.now();
    expect(guard.gate.state()).toBe('paused');

    const logLine = client.rest.post(Routes.channelMessages(channelId), { body: { content: 'a log line' } });
    await client.rest.get(Routes.channel(channelId));
    const sentAt = (method: string) =>
      emulator.state.requestLog.find(
        (r) => r.method === method && r.path.endsWith(`/channels/${channelId}${method === 'POST' ? '/messages' : ''}`),
      )?.at;
    expect(sentAt('GET')! - recordedAt).toBeLessThan(1000);
    expect(sentAt('POST')).toBeUndefined();

    // the message goes once the ten answers have left the window
    await logLine;
    expect(sentAt('POST')! - recordedAt).toBeGreaterThanOrEqual(1400);
    expect(guard.gate.state()).toBe('open');
  });
});
