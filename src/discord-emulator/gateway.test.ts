import { once } from 'node:events';
import { ChannelType, Client, Events, GatewayIntentBits, type GuildMember, type Message } from 'discord.js';
import { WebSocket } from 'ws';
import { createDiscordEmulator, type DiscordEmulator } from './index';
import { emulatorClientOptions, loginEmulatorClient } from './emulator-clients';

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('Discord emulator gateway with the real discord.js client', () => {
  let emulator: DiscordEmulator;
  let client: Client<true> | undefined;

  beforeEach(async () => {
    emulator = await createDiscordEmulator({ rateLimits: false });
  });

  afterEach(async () => {
    await client?.destroy();
    client = undefined;
    await emulator.close();
  });

  it('logs in and gets ready fast with the sandbox guild cached', async () => {
    const started = Date.now();
    client = await loginEmulatorClient(emulator);
    expect(Date.now() - started).toBeLessThan(5000);

    const guild = client.guilds.cache.get(emulator.guild.id);
    expect(guild?.name).toBe('Gatekeeper Sandbox');
    expect(guild?.roles.everyone.id).toBe(emulator.guild.id);
    expect(guild?.roles.cache.map((role) => role.name)).toEqual(
      expect.arrayContaining(['@everyone', 'Verified', 'Limited Access', 'Unverified', 'Staff']),
    );
    const channelNames = guild?.channels.cache.filter((c) => c.type === ChannelType.GuildText).map((c) => c.name);
    expect(channelNames).toEqual(
      expect.arrayContaining(['verification', 'rules', 'raffle-confirmation-chat', 'stream-general-chat', 'logs']),
    );
    expect(guild?.members.me?.id).toBe(emulator.application.botUserId);
    expect(client.user.id).toBe(emulator.application.botUserId);
    expect(client.application.id).toBe(emulator.application.id);

    const botRole = guild?.members.me?.roles.highest;
    expect(botRole?.managed).toBe(true);
    expect(botRole?.position).toBeGreaterThan(guild?.roles.cache.find((r) => r.name === 'Staff')?.position ?? 99);
    expect(guild?.members.me?.permissions.has('ManageRoles')).toBe(true);
  });

  it('gives snowflakes realistic creation dates', async () => {
    client = await loginEmulatorClient(emulator);
    const guild = client.guilds.cache.get(emulator.guild.id);
    expect(guild?.createdAt.getTime()).toBeLessThan(Date.now() - 300 * 24 * 3600 * 1000);
    const staff = await client.users.fetch(emulator.state.findUserByName('sandbox-staff')?.id ?? '');
    expect(staff.createdAt.getFullYear()).toBeGreaterThan(2015);
  });

  it('rejects a bad token with close code 4004, which discord.js reports as an invalid token', async () => {
    const bad = new Client(emulatorClientOptions(emulator));
    // The REST call to /gateway/bot fails first with 401, as it would on Discord.
    await expect(bad.login('not-the-token')).rejects.toThrow('An invalid token was provided.');
    await bad.destroy();

    const socket = new WebSocket(`${emulator.gatewayUrl}?v=10&encoding=json`);
    await once(socket, 'message');
    socket.send(JSON.stringify({ op: 2, d: { token: 'wrong', intents: 1, properties: {} } }));
    const [code] = (await once(socket, 'close')) as [number];
    expect(code).toBe(4004);
  });

  it('dispatches GUILD_MEMBER_ADD/UPDATE/REMOVE to discord.js', async () => {
    client = await loginEmulatorClient(emulator);
    const user = emulator.createUser({ username: 'newbie' });
    const added = once(client, Events.GuildMemberAdd) as Promise<[GuildMember]>;
    emulator.addGuildMember(user.id, ['Unverified']);
    const [member] = await added;
    expect(member.id).toBe(user.id);
    expect(member.roles.cache.map((r) => r.name)).toContain('Unverified');

    const updated = once(client, Events.GuildMemberUpdate) as Promise<[GuildMember, GuildMember]>;
    emulator.grantRole(user.id, 'Verified');
    const [, after] = await updated;
    expect(after.roles.cache.map((r) => r.name)).toEqual(expect.arrayContaining(['Verified', 'Unverified']));

    const removed = once(client, Events.GuildMemberRemove);
    emulator.removeGuildMember(user.id);
    await removed;
    expect(client.guilds.cache.get(emulator.guild.id)?.members.cache.has(user.id)).toBe(false);
  });

  it('numbers dispatches per session: READY, GUILD_CREATE, then later events', async () => {
    const socket = new WebSocket(`${emulator.gatewayUrl}?v=10&encoding=json`);
    const received: Array<{ op: number; s: number | null; t: string | null }> = [];
    socket.on('message', (data: Buffer) =>
      received.push(JSON.parse(data.toString()) as { op: number; s: number | null; t: string | null }),
    );
    await once(socket, 'open');
    socket.send(
      JSON.stringify({
        op: 2,
        d: { token: emulator.application.botToken, intents: GatewayIntentBits.Guilds | GatewayIntentBits.GuildMembers, properties: {} },
      }),
    );
    await waitFor(() => received.length >= 3);
    emulator.addGuildMember(emulator.createUser({ username: 'counted' }).id);
    await waitFor(() => received.length >= 4);
    expect(received.map((p) => [p.op, p.s, p.t])).toEqual([
      [10, null, null],
      [0, 1, 'READY'],
      [0, 2, 'GUILD_CREATE'],
      [0, 3, 'GUILD_MEMBER_ADD'],
    ]);
    socket.close();
  });

  it('answers heartbeats and validates the connection query', async () => {
    const socket = new WebSocket(`${emulator.gatewayUrl}?v=10&encoding=json`);
    const [hello] = (await once(socket, 'message')) as [Buffer];
    expect(JSON.parse(hello.toString())).toMatchObject({ op: 10, d: { heartbeat_interval: 41_250 } });
    socket.send(JSON.stringify({ op: 1, d: null }));
    const [ack] = (await once(socket, 'message')) as [Buffer];
    expect(JSON.parse(ack.toString())).toMatchObject({ op: 11 });
    socket.close();

    const wrongVersion = new WebSocket(`${emulator.gatewayUrl}?v=6&encoding=json`);
    const [code] = (await once(wrongVersion, 'close')) as [number];
    expect(code).toBe(4012);
  });

  it('resumes after the gateway drops and replays events missed meanwhile', async () => {
    client = await loginEmulatorClient(emulator);
    const user = emulator.createUser({ username: 'while-offline' });
    const resumed = once(client, Events.ShardResume);
    const added = once(client, Events.GuildMemberAdd) as Promise<[GuildMember]>;

    emulator.faults.dropGateway();
    emulator.addGuildMember(user.id); // dispatched while no socket is open
    await resumed;
    const [member] = await added;
    expect(member.id).toBe(user.id);
    expect(emulator.gateway.stats).toMatchObject({ identifies: 1, resumes: 1 });
  });

  it('resumes on op 7 RECONNECT', async () => {
    client = await loginEmulatorClient(emulator);
    const resumed = once(client, Events.ShardResume);
    emulator.faults.requestReconnect();
    await resumed;
    expect(emulator.gateway.stats.resumes).toBe(1);
    expect(emulator.gateway.connectedSessions).toBe(1);
  });

  it('identifies again after INVALID_SESSION', async () => {
    client = await loginEmulatorClient(emulator);
    const ready = once(client, Events.ShardReady);
    emulator.faults.invalidateSessions();
    await ready;
    expect(emulator.gateway.stats.identifies).toBe(2);
  });

  it('withholds message content without the MESSAGE_CONTENT intent, as Discord does', async () => {
    const channelId = emulator.guild.channelId('stream-general-chat');
    const memberId = emulator.state.findUserByName('sandbox-member')?.id ?? '';
    client = await loginEmulatorClient(emulator, { intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages] });
    const blind = once(client, Events.MessageCreate) as Promise<[Message]>;
    emulator.postMessageAs(memberId, channelId, 'hello there');
    expect((await blind)[0].content).toBe('');
    await client.destroy();

    client = await loginEmulatorClient(emulator, {
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
    });
    const seeing = once(client, Events.MessageCreate) as Promise<[Message]>;
    emulator.postMessageAs(memberId, channelId, 'hello again');
    expect((await seeing)[0].content).toBe('hello again');
  });

  it('serves an empty seed: only @everyone, the bot role, the owner and the bot', async () => {
    const empty = await createDiscordEmulator({ seed: 'empty', rateLimits: false });
    try {
      const bot = await loginEmulatorClient(empty);
      const guild = bot.guilds.cache.get(empty.guild.id);
      expect(guild?.channels.cache.size).toBe(0);
      expect(guild?.roles.cache.size).toBe(2);
      expect(() => empty.guild.channelId('verification')).toThrow(/no channel/);
      const created = once(bot, Events.ChannelCreate);
      empty.createChannel('verification');
      await created;
      expect(guild?.channels.cache.find((c) => c.name === 'verification')).toBeDefined();
      await bot.destroy();
    } finally {
      await empty.close();
    }
  });

  it('sends only the bot in GUILD_CREATE without the GuildMembers intent, and answers member chunk requests', async () => {
    client = await loginEmulatorClient(emulator, { intents: [GatewayIntentBits.Guilds] });
    const guild = client.guilds.cache.get(emulator.guild.id);
    expect(guild?.members.cache.size).toBe(1);
    const fetched = await guild?.members.fetch({ query: 'sandbox', limit: 10 });
    expect(fetched?.map((m) => m.user.username).sort()).toEqual(['sandbox-member', 'sandbox-owner', 'sandbox-staff']);
  });
});
