import { createManualClock } from '../../clock';
import { silentLogger, type Logger } from '../../logger';
import { emulatorOutboxWorker } from '../../test-support/emulator-guild';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createDiscordGuard } from '../discord-guard';
import { createBotRest } from '../discord-rest';
import { discordHealthRouter } from '../../http/routes/health.router';
import { createDiscordEmulator, type DiscordEmulator } from '../../discord-emulator';

jest.setTimeout(60_000);

describeEngines('a revoked bot token pauses the outbox without losing work', (getDatabase) => {
  let emulator: DiscordEmulator;
  const clock = createManualClock(new Date());
  const sealKey = Buffer.alloc(32, 7);

  beforeAll(async () => {
    emulator = await createDiscordEmulator({ rateLimits: false });
  });
  afterAll(async () => emulator.close());
  beforeEach(async () => resetDatabase(getDatabase()));

  it('keeps the queued actions with their attempts, says so once, and runs them when the token works again', async () => {
    const errors: string[] = [];
    const logger = {
      ...silentLogger,
      error: (_o: unknown, msg?: string) => errors.push(String(msg)),
      child: () => logger,
    } as unknown as Logger;
    const guard = createDiscordGuard({ apiBase: emulator.apiBase, botToken: emulator.application.botToken, logger, probeDelaysMs: [50] });
    const rest = createBotRest({ apiBase: emulator.apiBase, botToken: emulator.application.botToken, timeoutMs: 5000, guard });
    const database = getDatabase();
    const { outbox, worker } = emulatorOutboxWorker(emulator, { database, rest, clock, sealKey, logger, guard });
    const users = Array.from({ length: 5 }, (_, i) => emulator.createUser({ username: `revoked${i}` }));
    for (const user of users) emulator.addGuildMember(user.id, ['Unverified']);

    emulator.faults.revokeBotToken();
    await database.db.transaction(async (tx) => {
      for (const user of users)
        await outbox.enqueue(tx, { kind: 'add_role', discordId: user.id, role: 'verified', reason: 'Gatekeeper: test' });
    });
    await worker.drain();

    const queued = await outbox.list(database.db);
    expect(queued.map((e) => [e.status, e.attempts])).toEqual(users.map(() => ['pending', 0]));
    expect(guard.token.status().status).toBe('rejected');
    expect(errors.filter((m) => /rejected the bot token/.test(m))).toHaveLength(1);
    expect(guard.invalid.snapshot().total).toBeGreaterThan(0);

    const health = discordHealthRouter({ current: async () => ({ checkedAt: new Date().toISOString(), problems: [] }) }, guard);
    const layer = (health as unknown as { stack: { route: { stack: { handle: (req: unknown, res: unknown) => Promise<void> }[] } }[] })
      .stack[0]!;
    let answer: { code: number; body: Record<string, unknown> } = { code: 0, body: {} };
    const res = { status: (code: number) => ({ json: (body: Record<string, unknown>) => (answer = { code, body }) }) };
    await layer.route.stack[0]!.handle({}, res);
    expect(answer.code).toBe(503);
    expect(answer.body.status).toBe('token-rejected');

    emulator.faults.restoreBotToken();
    await new Promise<void>((resolve) => guard.token.onRestored(resolve));
    await worker.drain();
    expect((await outbox.list(database.db)).map((e) => e.status)).toEqual(users.map(() => 'done'));
    for (const user of users) expect(emulator.state.guild.members.get(user.id)?.roles).toContain(emulator.guild.roleId('Verified'));
    guard.token.stop();
  });
});
