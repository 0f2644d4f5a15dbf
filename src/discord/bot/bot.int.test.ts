import { InteractionResponseType } from 'discord-api-types/v10';
import { sql } from 'drizzle-orm';
import request from 'supertest';
import { createManualClock } from '../../clock';
import { openPostgres, type Database } from '../../db/client';
import { silentLogger } from '../../logger';
import { createVerificationService } from '../../modules/verification';
import { createOutboxRepository } from '../../modules/outbox';
import { startGatekeeper } from '../../server';
import { createMemorySetupCodeStore } from '../../modules/staff';
import { createTestDatabase, describeEngines, resetDatabase } from '../../test-support/database';
import { emulatorGuildDirectory } from '../../test-support/emulator-guild';
import { buildMember } from '../../test-support/factories';
import { TEST_INTERACTION_WINDOW_MS, testServerEnv } from '../../test-support/gatekeeper';
import { createBotRest } from '../discord-rest';
import { createDiscordEmulator, type DiscordEmulator } from '../../discord-emulator';
import { createBot, type Bot } from './bot';
import { terminateLeaderLockHolder } from '../../test-support/leader-lock-holder';
import { describeOn } from '../../test-support/engine-pass';

jest.setTimeout(60_000);

describeEngines('the bot', (getDatabase, engine) => {
  let emulator: DiscordEmulator;
  const bots: Bot[] = [];
  const extraDatabases: Database[] = [];

  beforeAll(async () => {
    emulator = await createDiscordEmulator({
      interactionAckTimeoutMs: TEST_INTERACTION_WINDOW_MS,
      // Each login asks GET /gateway/bot first, and Discord allows 2 of those per 5 s: the dozen logins of this
      // file on one emulator waited about 2.5 s each for that window. What is checked here is how the bot logs in,
      // answers and stops, not that pace, so the window is 500 ms (the same count: the bot still waits its turn).
      rateLimits: { buckets: { gateway: { limit: 2, windowMs: 500 } } },
    });
  });
  afterAll(async () => {
    for (const bot of bots) await bot.stop();
    for (const database of extraDatabases) await database.close();
    await emulator.close();
  });
  beforeEach(async () => resetDatabase(getDatabase()));

  function makeBot(database: Database, token = emulator.application.botToken) {
    const rest = createBotRest({ apiBase: emulator.apiBase, botToken: token });
    const directory = emulatorGuildDirectory(rest, emulator);
    const clock = createManualClock();
    const bot = createBot({
      config: { token, apiBase: emulator.apiBase, guildId: emulator.guild.id, websiteUrl: 'http://gatekeeper.test' },
      database,
      logger: silentLogger,
      clock,
      rest,
      directory,
      verification: createVerificationService({
        database,
        clock,
        logger: silentLogger,
        outbox: createOutboxRepository({ sealKey: Buffer.alloc(32, 1), now: () => new Date() }),
        alts: { detect: async () => ({ alts: [], isLinkedAsAlt: false }), lookupQuery: () => null },
        vpnFailurePolicy: 'allow',
        certainAltAction: 'none',
        tokenKey: Buffer.alloc(32, 2),
      }),
    });
    bots.push(bot);
    return bot;
  }
  const panel = () => emulator.findButton(emulator.guild.channelId('verification'), 'Complete Verification!')!;
  const click = (userId: string, guildId?: string) =>
    emulator.clickButton({
      userId,
      channelId: emulator.guild.channelId('verification'),
      messageId: panel().messageId,
      customId: panel().customId,
      ...(guildId ? { guildId } : {}),
    });

  it('logs in, posts the panel once, and reuses it after a restart', async () => {
    const first = makeBot(getDatabase());
    first.start();
    await first.ready;
    expect(first.state).toMatchObject({ leader: true, ready: true });
    const messageId = first.state.panelMessageId;
    await first.stop();
    const second = makeBot(getDatabase());
    second.start();
    await second.ready;
    expect(second.state.panelMessageId).toBe(messageId);
    const panels = emulator.state
      .messages(emulator.guild.channelId('verification'))
      .filter((m) => m.embeds?.[0]?.title === 'Server Verification');
    expect(panels).toHaveLength(1);
    await second.stop();
  });

  it('asks a member who has not accepted the rules to do so, and refuses interactions from another guild', async () => {
    const bot = makeBot(getDatabase());
    bot.start();
    await bot.ready;
    const user = emulator.createUser({ username: 'rulesless' });
    emulator.addGuildMember(user.id);
    await buildMember(getDatabase().db, { discordId: user.id, rulesConfirmed: false });
    expect((await click(user.id)).text).toContain('accept the server rules');
    expect((await click(user.id, '123456789012345678')).text).toContain('does not manage this server');
    await bot.stop();
  });

  it("answers 'Complete Verification!' within a second while the database is held and a raid's joins are queued, then edits in the outcome", async () => {
    const bot = makeBot(getDatabase());
    bot.start();
    await bot.ready;
    const user = emulator.createUser({ username: 'clicker' });
    emulator.addGuildMember(user.id, ['Unverified']);
    await buildMember(getDatabase().db, { discordId: user.id, rulesConfirmed: true });
    // a raid's joins waiting in the outbox
    await getDatabase().exec(`
      insert into discord_outbox (kind, discord_id, payload, status, next_attempt_at, updated_at, created_at)
        select 'add_guild_member', (400000000000000000 + g)::text, '{}', 'pending', now(), now(), now() from generate_series(1, 2000) g`);
    // the database busy: a transaction holds the members table for 2.5 s (on PGlite, its one connection)
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = () => undefined as void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const holder = getDatabase().db.transaction(async (tx) => {
      await tx.execute(sql`lock table members in access exclusive mode`);
      locked();
      await released;
    });
    await holding;
    const clicked = click(user.id);
    setTimeout(release, 2500);
    const result = await clicked;
    await holder;
    const record = emulator.state.interactions.get(result.interactionId)!;
    // deferred (ephemeral "thinking…") 0.5 s after the click, well inside Discord's 3 s, before the database answered…
    expect(result.callbackType).toBe(InteractionResponseType.DeferredChannelMessageWithSource);
    expect(result.ephemeral).toBe(true);
    expect(record.acknowledgedAt! - record.createdAt).toBeLessThan(1000);
    // …then the outcome edited in
    expect(result.text).toContain("You're verified");
    await bot.stop();
  });

  it('stays disconnected when stopped while it was still electing its leader (a SIGTERM during start-up)', async () => {
    const sessionsBefore = emulator.gateway.connectedSessions;
    const bot = makeBot(getDatabase());
    bot.start(); // the leader election is a database round trip: stop() comes before it answers
    await bot.stop();
    await new Promise((r) => setTimeout(r, 1500));
    expect(bot.state).toMatchObject({ leader: false, ready: false });
    expect(emulator.gateway.connectedSessions).toBe(sessionsBefore);
    // the lock is free: another bot becomes the leader
    const next = makeBot(getDatabase());
    next.start();
    await next.ready;
    expect(next.state.leader).toBe(true);
    await next.stop();
  });

  it('stops when stopped at any moment of its login (a SIGTERM during start-up): stop() returns and no session stays open', async () => {
    const sessionsBefore = emulator.gateway.connectedSessions;
    const panelsBefore = emulator.state.messages(emulator.guild.channelId('verification')).length;
    // stop() at every few milliseconds of the election and the login; discord.js's destroy() during its connect could wait forever
    for (const delayMs of [0, 20, 50, 100]) {
      const bot = makeBot(getDatabase());
      bot.start();
      await new Promise((r) => setTimeout(r, delayMs));
      const outcome = await Promise.race([
        bot.stop().then(() => 'stopped'),
        new Promise((r) => setTimeout(() => r('stop() did not return within 12 s'), 12_000)),
      ]);
      expect({ delayMs, outcome }).toEqual({ delayMs, outcome: 'stopped' });
      expect(bot.state).toMatchObject({ ready: false });
    }
    await new Promise((r) => setTimeout(r, 1000));
    expect(emulator.gateway.connectedSessions).toBe(sessionsBefore);
    // a bot stopped before its ready event posts nothing (the panel may exist from an earlier test, never twice)
    expect(emulator.state.messages(emulator.guild.channelId('verification')).length).toBeLessThanOrEqual(panelsBefore + 1);
  });

  it('reports a rejected token once, naming DISCORD_BOT_TOKEN, without throwing', async () => {
    const bot = makeBot(getDatabase(), 'not-a-valid-token');
    bot.start();
    for (let i = 0; i < 50 && !bot.state.fatal; i++) await new Promise((r) => setTimeout(r, 100));
    expect(bot.state.fatal).toMatch(/DISCORD_BOT_TOKEN was rejected/);
    expect(bot.state.ready).toBe(false);
    await bot.stop();
  });

  if (engine === 'postgres') {
    it('runs exactly one bot across processes and fails over when the leader dies', async () => {
      const url = (getDatabase().pool!.options as { connectionString: string }).connectionString;
      const otherProcess = await openPostgres({ url, poolMax: 3 });
      extraDatabases.push(otherProcess);
      const a = makeBot(getDatabase());
      const b = makeBot(otherProcess);
      a.start();
      await a.ready;
      b.start();
      await new Promise((r) => setTimeout(r, 1000));
      expect(a.state.leader).toBe(true);
      expect(b.state.leader).toBe(false);
      expect(emulator.gateway.connectedSessions).toBe(1);

      // the leader's database connection dies (its process crashed): the lock is released
      expect(await terminateLeaderLockHolder(getDatabase())).toBe(1);
      for (let i = 0; i < 150 && !b.state.ready; i++) await new Promise((r) => setTimeout(r, 100));
      expect(b.state).toMatchObject({ leader: true, ready: true });
      expect(a.state.leader).toBe(false);
    });
  }
});

// on PGlite only (its database is): the PostgreSQL pass ran the same test again
describeOn('pglite')('a process whose bot token is rejected', () => {
  it('keeps serving the website and says which variable is wrong', async () => {
    const emulator = await createDiscordEmulator();
    const database = await createTestDatabase();
    const handle = await startGatekeeper(
      testServerEnv({
        DISCORD_BOT_TOKEN: 'wrong-token',
        DISCORD_CLIENT_ID: emulator.application.clientId,
        DISCORD_CLIENT_SECRET: emulator.application.clientSecret,
        DISCORD_GUILD_ID: emulator.guild.id,
        DISCORD_API_URL: emulator.apiBase,
        PUBLIC_URL: 'http://127.0.0.1',
      }),
      { logger: silentLogger, database, setupCode: createMemorySetupCodeStore('X'), bcryptCost: 4 },
    );
    try {
      for (let i = 0; i < 50 && !handle.services.bot.state.fatal; i++) await new Promise((r) => setTimeout(r, 100));
      expect(handle.services.bot.state.fatal).toMatch(/DISCORD_BOT_TOKEN/);
      // PUBLIC_URL names the public site; the test talks to where the process listens
      await request(handle.localUrl!).get('/readyz').expect(200);
      await request(handle.localUrl!).get('/api/config').expect(200, { dataRetentionDays: 30, sandbox: false });
    } finally {
      await handle.stop();
      await database.close();
      await emulator.close();
    }
  });
});
