import { createManualClock } from '../../clock';
import { silentLogger } from '../../logger';
import { listAudit } from '../../modules/audit';
import type { DiscordAction } from '../../modules/outbox';
import { emulatorOutboxWorker } from '../../test-support/emulator-guild';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createBotRest } from '../discord-rest';
import { createDiscordEmulator, type DiscordEmulator, type RequestLogEntry } from '../../discord-emulator';
import { packLogMessages } from './pack-log-messages';

jest.setTimeout(90_000);

const ROLE_LIMIT = { limit: 25, windowMs: 1000 };

/** The most requests any one bucket saw inside one of its windows, by bucket. */
function busiestWindows(log: readonly RequestLogEntry[], windowMs: number): number {
  let worst = 0;
  const byBucket = new Map<string, number[]>();
  for (const entry of log) if (entry.bucket) byBucket.set(entry.bucket, [...(byBucket.get(entry.bucket) ?? []), entry.at]);
  for (const times of byBucket.values()) {
    times.sort((a, b) => a - b);
    for (let i = 0, j = 0; j < times.length; j++) {
      while (times[j]! - times[i]! >= windowMs) i++;
      worst = Math.max(worst, j - i + 1);
    }
  }
  return worst;
}

describeEngines('Discord outbox worker against the emulator', (getDatabase) => {
  let emulator: DiscordEmulator;
  const clock = createManualClock(new Date());
  const sealKey = Buffer.alloc(32, 7);

  beforeAll(async () => {
    emulator = await createDiscordEmulator({ rateLimits: { buckets: { 'member-roles': ROLE_LIMIT } } });
  });
  afterAll(async () => emulator.close());
  beforeEach(async () => {
    await resetDatabase(getDatabase());
    emulator.faults.set('none');
  });

  function makeWorker(options: { logLingerMs?: number; pollMs?: number; logger?: typeof silentLogger } = {}) {
    const database = getDatabase();
    const rest = createBotRest({ apiBase: emulator.apiBase, botToken: emulator.application.botToken, timeoutMs: 5000 });
    const { outbox, worker } = emulatorOutboxWorker(emulator, {
      database,
      rest,
      clock,
      sealKey,
      batchSize: 100,
      concurrency: 20,
      ...options,
    });
    return { outbox, worker, database };
  }
  const enqueueAll = async (outbox: ReturnType<typeof makeWorker>['outbox'], actions: DiscordAction[]) => {
    await getDatabase().db.transaction(async (tx) => {
      for (const action of actions) await outbox.enqueue(tx, action);
    });
  };
  const rolesOf = (userId: string) =>
    (emulator.state.guild.members.get(userId)?.roles ?? []).map((id) => emulator.state.guild.roles.get(id)?.name);

  it('keeps a burst of 500 role actions under the rate limits with zero 429s', async () => {
    const { outbox, worker } = makeWorker();
    const users = Array.from({ length: 250 }, (_, i) => emulator.createUser({ username: `burst${i}` }));
    for (const user of users) emulator.addGuildMember(user.id, ['Unverified']);
    const before = emulator.state.requestLog.length;
    await enqueueAll(
      outbox,
      users.flatMap((user) => [
        { kind: 'add_role', discordId: user.id, role: 'verified', reason: 'Gatekeeper: test' } as const,
        { kind: 'remove_role', discordId: user.id, role: 'unverified', reason: 'Gatekeeper: test' } as const,
      ]),
    );
    await worker.drain();

    const log = emulator.state.requestLog.slice(before);
    // the emulator enforces Discord's fixed windows: any request over a limit would have been a 429
    expect(log.filter((entry) => entry.status === 429)).toHaveLength(0);
    // seen through a sliding window, fixed windows allow at most twice the limit across a boundary
    expect(
      busiestWindows(
        log.filter((e) => e.bucket?.startsWith('member-roles')),
        ROLE_LIMIT.windowMs,
      ),
    ).toBeLessThanOrEqual(2 * ROLE_LIMIT.limit);
    expect(busiestWindows(log, 1000)).toBeLessThanOrEqual(2 * 50);
    expect(log.filter((e) => e.route.endsWith('/roles/:roleId'))).toHaveLength(500);
    expect(users.every((user) => rolesOf(user.id).join() === 'Verified')).toBe(true);
    expect(await outbox.depth(getDatabase().db)).toEqual({ pending: 0, running: 0, failed: 0 });
  });

  it('retries through injected 500s and finishes', async () => {
    const { outbox, worker } = makeWorker();
    const user = emulator.createUser({ username: 'flaky' });
    emulator.addGuildMember(user.id, ['Unverified']);
    emulator.faults.set('error500', { routes: /roles/, count: 3 });
    await enqueueAll(outbox, [{ kind: 'add_role', discordId: user.id, role: 'verified', reason: 'Gatekeeper: test' }]);

    await worker.drain();
    expect(worker.stats.retried).toBeGreaterThanOrEqual(1);
    expect(rolesOf(user.id)).not.toContain('Verified');
    for (let i = 0; i < 5 && !rolesOf(user.id).includes('Verified'); i++) {
      clock.advance(60 * 60 * 1000); // past any backoff
      await worker.drain();
    }
    expect(rolesOf(user.id)).toContain('Verified');
    expect(emulator.faults.injected.error500).toBe(3);
  });

  it('finishes when two workers share the token and meet 429s', async () => {
    const a = makeWorker();
    const b = makeWorker();
    const users = Array.from({ length: 40 }, (_, i) => emulator.createUser({ username: `pair${i}` }));
    for (const user of users) emulator.addGuildMember(user.id);
    await enqueueAll(
      a.outbox,
      users.map((user) => ({ kind: 'add_role', discordId: user.id, role: 'limited', reason: 'Gatekeeper: test' }) as const),
    );
    await Promise.all([a.worker.drain(), b.worker.drain()]);
    for (let i = 0; i < 5 && (await a.outbox.depth(getDatabase().db)).pending > 0; i++) {
      clock.advance(60 * 60 * 1000);
      await Promise.all([a.worker.drain(), b.worker.drain()]);
    }
    expect(users.every((user) => rolesOf(user.id).includes('Limited Access'))).toBe(true);
    expect(a.worker.stats.done + b.worker.stats.done).toBe(40); // each action ran exactly once
  });

  it('ends an action that can never succeed in a visible failed state, with an audit row', async () => {
    const { outbox, worker } = makeWorker();
    // a kick of a user who is not in the guild: Discord answers 404 Unknown Member. (A role change meeting Unknown
    // Member is no failure: the member is not there to change, and the next join carries the roles: absent-member.ts.)
    await enqueueAll(outbox, [{ kind: 'kick', discordId: '123456789012345678', reason: 'Gatekeeper: test' }]);
    await worker.drain();
    const failed = await outbox.list(getDatabase().db, { status: 'failed' });
    expect(failed).toHaveLength(1);
    expect(failed[0]!.lastError).toMatch(/404/);
    const audit = await listAudit(getDatabase().db, { action: 'outbox.failed' });
    expect(audit.entries).toHaveLength(1);
    expect(worker.stats.invalidRequests).toBe(1);
  });

  it('a role change for someone not in the guild is done with a line saying they get the roles when they rejoin, not a failure to retry', async () => {
    const { outbox, worker } = makeWorker();
    await enqueueAll(outbox, [
      { kind: 'update_roles', discordId: '123456789012345679', add: ['verified'], remove: ['unverified'], reason: 'Gatekeeper: test' },
    ]);
    await worker.drain();
    expect(await outbox.list(getDatabase().db, { status: 'failed' })).toEqual([]);
    const { rows } = await getDatabase().query<{ text: string }>(
      `select payload->>'text' as text from discord_outbox where kind = 'log_message' and discord_id = '123456789012345679'`,
    );
    expect(rows.map((r) => r.text)).toEqual([
      'ℹ️ <@123456789012345679> is not in the server, so their roles were not changed: they get the right roles when they rejoin through the website.',
    ]);
    expect((await listAudit(getDatabase().db, { action: 'outbox.failed' })).entries).toEqual([]);
  });

  it('adds a visitor to the guild with the sealed access token, then forgets the token', async () => {
    const { outbox, worker } = makeWorker();
    const user = emulator.createUser({ username: 'joiner' });
    const redirectUri = 'http://127.0.0.1/oauth/callback';
    const code = emulator.issueAuthorizationCode({
      userId: user.id,
      clientId: emulator.application.clientId,
      redirectUri,
      scope: 'identify guilds.join',
    });
    const tokenResponse = await fetch(`${emulator.apiBase}/v10/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: emulator.application.clientId,
        client_secret: emulator.application.clientSecret,
      }),
    });
    const { access_token: accessToken } = (await tokenResponse.json()) as { access_token: string };
    await enqueueAll(outbox, [
      { kind: 'add_guild_member', discordId: user.id, roles: ['unverified'], accessToken, reason: 'Gatekeeper: test' },
    ]);

    const { rows: sealed } = await getDatabase().query<{ sealed_secret: string }>('select sealed_secret from discord_outbox');
    expect(sealed[0]!.sealed_secret).not.toContain(accessToken);
    await worker.drain();
    expect(rolesOf(user.id)).toEqual(['Unverified']);
    const { rows: after } = await getDatabase().query<{ sealed_secret: string | null; status: string }>(
      'select sealed_secret, status from discord_outbox',
    );
    expect(after[0]).toEqual({ sealed_secret: null, status: 'done' });
  });

  it('merges waiting log lines into as few messages as possible, and records the lines of a message done in one statement', async () => {
    const { outbox, worker, database } = makeWorker();
    const done = jest.spyOn(outbox, 'markDone');
    const logs = emulator.guild.channelId('logs');
    const before = emulator.state.messages(logs).length;
    await enqueueAll(
      outbox,
      Array.from({ length: 30 }, (_, i) => ({ kind: 'log_message', text: `line ${i}` }) as const),
    );
    try {
      await worker.drain();
      const posted = emulator.state.messages(logs).slice(before);
      expect(posted).toHaveLength(1);
      expect(posted[0]!.content.split('\n')).toHaveLength(30);
      expect(done).toHaveBeenCalledTimes(1);
      expect(done.mock.calls[0]!.slice(1)).toHaveLength(30);
      expect(worker.stats.done).toBe(30);
      expect(await outbox.depth(database.db)).toEqual({ pending: 0, running: 0, failed: 0 });
    } finally {
      done.mockRestore();
    }
  });

  it('running: posts the lines that fill messages at once, holds the last message until its lines have waited, every line once and in order', async () => {
    const lingerMs = 4000;
    const { outbox, worker, database } = makeWorker({ logLingerMs: lingerMs });
    const logs = emulator.guild.channelId('logs');
    const before = emulator.state.messages(logs).length;
    const lines = Array.from({ length: 60 }, (_, i) => `✅ <@${100000000000000000 + i}> completed website verification (${i}).`);
    const expected = packLogMessages(lines);
    expect(expected.length).toBeGreaterThan(1);
    await enqueueAll(
      outbox,
      lines.map((text) => ({ kind: 'log_message', text }) as const),
    );
    const started = Date.now();
    const seen: number[] = [];
    worker.start();
    try {
      while (emulator.state.messages(logs).length - before < expected.length) {
        if (Date.now() - started > 30_000) throw new Error('the log lines were not all posted');
        const count = emulator.state.messages(logs).length - before;
        while (seen.length < count) seen.push(Date.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      seen.push(Date.now() - started);
    } finally {
      await worker.stop();
    }
    const posted = emulator.state
      .messages(logs)
      .slice(before)
      .map((m) => m.content);
    expect(posted).toEqual(expected.map((m) => m.content));
    // the full messages did not wait for the linger; the last one (not full) did
    expect(seen[expected.length - 2]).toBeLessThan(lingerMs);
    expect(seen[expected.length - 1]).toBeGreaterThanOrEqual(lingerMs - 50);
    expect(await outbox.depth(database.db)).toEqual({ pending: 0, running: 0, failed: 0 });
  });

  it('stopping posts the lines it holds instead of leaving them to the lease', async () => {
    const { outbox, worker, database } = makeWorker({ logLingerMs: 60_000 });
    const logs = emulator.guild.channelId('logs');
    const before = emulator.state.messages(logs).length;
    await enqueueAll(
      outbox,
      [1, 2, 3].map((n) => ({ kind: 'log_message', text: `held ${n}` }) as const),
    );
    worker.start();
    for (let waited = 0; (await outbox.depth(database.db)).pending > 0 && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(emulator.state.messages(logs).length).toBe(before); // taken, held
    await worker.stop();
    expect(
      emulator.state
        .messages(logs)
        .slice(before)
        .map((m) => m.content),
    ).toEqual(['held 1\nheld 2\nheld 3']);
    expect(await outbox.depth(database.db)).toEqual({ pending: 0, running: 0, failed: 0 });
  });

  it('claims once when the claim took less than the room it had, not a second time to find nothing', async () => {
    // held log lines run nothing meanwhile (no finished action calls for a claim), and the poll is far off
    const { outbox, worker } = makeWorker({ logLingerMs: 60_000, pollMs: 60_000 });
    const claims = jest.spyOn(outbox, 'claimDue');
    await enqueueAll(
      outbox,
      [1, 2, 3].map((n) => ({ kind: 'log_message', text: `claimed once ${n}` }) as const),
    );
    worker.start();
    try {
      for (let waited = 0; claims.mock.results.length === 0 && waited < 10_000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await claims.mock.results[0]!.value;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(claims).toHaveBeenCalledTimes(1);
      expect(await claims.mock.results[0]!.value).toHaveLength(3);
      // a visitor finishing meanwhile still gets a claim of its own
      await enqueueAll(outbox, [{ kind: 'log_message', text: 'nudged' }]);
      worker.nudge();
      for (let waited = 0; claims.mock.results.length < 2 && waited < 10_000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await claims.mock.results[1]!.value).toHaveLength(1);
    } finally {
      await worker.stop();
      claims.mockRestore();
    }
  });

  it('logs a database that went away as a warning, and any other failure of its own as an error, and goes on', async () => {
    const logger = silentLogger.child({});
    const warn = jest.spyOn(logger, 'warn');
    const error = jest.spyOn(logger, 'error');
    const { outbox, worker } = makeWorker({ logger, pollMs: 20 });
    const claims = jest
      .spyOn(outbox, 'claimDue')
      .mockRejectedValueOnce(
        new Error('Failed query: select …', {
          cause: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
        }),
      )
      .mockRejectedValueOnce(new Error('a bug of ours'));
    const user = emulator.createUser({ username: 'after-outage' });
    emulator.addGuildMember(user.id, ['Unverified']);
    await enqueueAll(outbox, [{ kind: 'add_role', discordId: user.id, role: 'verified', reason: 'Gatekeeper: test' }]);
    worker.start();
    try {
      for (let waited = 0; !rolesOf(user.id).includes('Verified') && waited < 10_000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      await worker.stop();
      claims.mockRestore();
    }
    expect(rolesOf(user.id)).toContain('Verified');
    expect(warn).toHaveBeenCalledWith(
      { sqlState: '57P01', message: 'Failed query: select …' },
      'outbox worker: the database is unreachable; its work waits until it answers',
    );
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0]![1]).toBe('outbox worker error');
  });
});
