import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createDiscordEmulator, type DiscordEmulator } from '../../discord-emulator';
import { silentLogger } from '../../logger';
import { createProxycheckEmulator, type ProxycheckEmulator } from '../../modules/vpn';
import { createMemorySetupCodeStore } from '../../modules/staff';
import { startGatekeeper, type GatekeeperHandle } from '../../server';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildMember } from '../../test-support/factories';
import { buildFingerprint, TEST_START_OPTIONS, testServerEnv } from '../../test-support/gatekeeper';
import { cookieOf } from '../../test-support/security-kit';

jest.setTimeout(90_000);

const TOKEN_ENDPOINT = /^\/oauth2\/token$/;

/**
 * The same OAuth callback reaching two web processes (WEB_CONCURRENCY > 1: a reload or a double
 * click can land on either): two Gatekeepers on one database, one Discord, one data folder (the
 * same cookie and hashing keys, as the processes of one server share). The repeat lands where the
 * first did, also while the first is still at work, and Discord is asked for a token once.
 */
describeEngines('the OAuth callback sent again to another web process', (getDatabase) => {
  let discord: DiscordEmulator;
  let proxycheck: ProxycheckEmulator;
  let dataDir: string;
  let a: GatekeeperHandle;
  let b: GatekeeperHandle;
  let ip = 0;
  /** every code and state Discord gave out in these tests */
  const issued: { code: string; state: string }[] = [];

  beforeAll(async () => {
    await resetDatabase(getDatabase());
    discord = await createDiscordEmulator();
    proxycheck = await createProxycheckEmulator();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-two-processes-'));
    const env = testServerEnv({
      SERVICES: 'web',
      DATA_DIR: dataDir,
      TRUST_PROXY: 'loopback',
      DISCORD_BOT_TOKEN: discord.application.botToken,
      DISCORD_CLIENT_ID: discord.application.clientId,
      DISCORD_CLIENT_SECRET: discord.application.clientSecret,
      DISCORD_GUILD_ID: discord.guild.id,
      DISCORD_API_URL: discord.apiBase,
      PROXYCHECK_URL: proxycheck.url,
      PUBLIC_URL: 'http://127.0.0.1',
    });
    const start = () =>
      startGatekeeper(env, {
        ...TEST_START_OPTIONS,
        logger: silentLogger,
        database: getDatabase(),
        setupCode: createMemorySetupCodeStore('TEST-SETUP-CODE'),
      });
    a = await start();
    b = await start();
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await discord?.close();
    await proxycheck?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  afterEach(() => discord.faults.set('none'));

  const at = (handle: GatekeeperHandle) => handle.localUrl!;

  /** A visitor who consented on process A and went to Discord: the cookie as it stood then, and the callback for `username` on either process. */
  async function atDiscord(username: string) {
    const address = `198.19.78.${++ip}`;
    const agent = request.agent(at(a));
    const { body } = await agent.get('/api/consent/token').set('X-Forwarded-For', address).expect(200);
    await agent
      .post('/api/consent')
      .set('X-Forwarded-For', address)
      .send({ consent: true, token: body.token, ...buildFingerprint() })
      .expect(200);
    const start = await agent.get('/oauth/start').set('X-Forwarded-For', address).expect(303);
    const user = discord.createUser({ username });
    const { code, state } = discord.authorizeAs(user.id, new URL(start.headers.location as string));
    issued.push({ code, state });
    const cookie = cookieOf(start);
    const callback = (on: GatekeeperHandle, withCookie = cookie) =>
      request(at(on)).get('/oauth/callback').query({ code, state }).set('X-Forwarded-For', address).set('Cookie', withCookie);
    const finish = (on: GatekeeperHandle, withCookie: string) =>
      request(at(on)).get('/oauth/finish').set('X-Forwarded-For', address).set('Cookie', withCookie);
    return { user, address, cookie, callback, finish };
  }
  const exchangesSince = (since: number, status?: number) =>
    discord.state.requests({ route: TOKEN_ENDPOINT, since, ...(status ? { status } : {}) }).length;
  const members = async (discordId: string) =>
    Number(
      (await getDatabase().query<{ n: number }>('select count(*)::int as n from members where discord_id = $1', [discordId])).rows[0]!.n,
    );
  const verifiedBy = async (on: GatekeeperHandle, cookie: string, address: string) =>
    (await request(at(on)).get('/api/verification/vpn-status').set('Cookie', cookie).set('X-Forwarded-For', address)).status;

  it('the callback reloaded on the other process after it succeeded: /rules again, no second exchange', async () => {
    const v = await atDiscord('reload-elsewhere');
    const since = Date.now();
    const first = await v.callback(a).expect(303);
    expect(first.headers.location).toBe('/rules');
    // the browser resends the callback with the cookie it had before the first answer, and reaches B
    const again = await v.callback(b).expect(303);
    expect(again.headers.location).toBe('/rules');
    expect(await verifiedBy(b, cookieOf(again), v.address)).toBe(200);
    expect(exchangesSince(since)).toBe(1);
    expect(await members(v.user.id)).toBe(1);
  });

  it('two callbacks at once on the two processes: both end on /rules, one exchange, one verification', async () => {
    const v = await atDiscord('double-click-elsewhere');
    const since = Date.now();
    const answers = await Promise.all([v.callback(a), v.callback(b)]);
    for (const [i, answer] of answers.entries()) {
      const on = i === 0 ? a : b;
      // one of them may still be waiting for the other: "Finishing sign-in…", then its check lands on /rules
      const landed = answer.status === 200 ? await v.finish(on, cookieOf(answer)) : answer;
      expect([landed.status, landed.headers.location]).toEqual([303, '/rules']);
      expect(await verifiedBy(on, cookieOf(landed), v.address)).toBe(200);
    }
    expect(exchangesSince(since)).toBe(1);
    expect(await members(v.user.id)).toBe(1);
  });

  it('"Finishing sign-in…" from A reloaded on B while Discord is slow: B shows the same page and lands on /rules once A is done', async () => {
    const v = await atDiscord('slow-elsewhere');
    // 429s longer than the callback waits inline
    discord.faults.set('rate429', { routes: TOKEN_ENDPOINT, count: 3, retryAfterSeconds: 1 });
    const since = Date.now();
    const first = await v.callback(a);
    expect(first.status).toBe(200);
    expect(first.text).toContain('Finishing sign-in…');
    let cookie = cookieOf(first);
    // the reload of the waiting page (still /oauth/callback?code=…), then its checks, all on B
    let landed = await v.callback(b, cookie);
    for (let i = 0; i < 20 && landed.status === 200; i++) {
      expect(landed.text).toContain('Finishing sign-in…');
      cookie = cookieOf(landed) || cookie;
      landed = await v.finish(b, cookie);
    }
    expect([landed.status, landed.headers.location]).toEqual([303, '/rules']);
    expect(await verifiedBy(b, cookieOf(landed), v.address)).toBe(200);
    expect(exchangesSince(since, 200)).toBe(1);
    expect(await members(v.user.id)).toBe(1);
  });

  it('a sign-in Discord failed, sent again to the other process: the same page, Discord not asked again', async () => {
    const v = await atDiscord('failed-elsewhere');
    discord.faults.set('error500', { routes: TOKEN_ENDPOINT });
    const first = await v.callback(a);
    discord.faults.set('none');
    expect(first.status).toBe(303);
    const since = Date.now();
    // with the cookie from before the first answer: only the database knows where it ended
    const again = await v.callback(b);
    expect(again.headers.location).toBe(first.headers.location);
    expect(exchangesSince(since)).toBe(0);
    expect(await members(v.user.id)).toBe(0);
  });

  it("the appeal page's sign-in sent again to the other process: identified again, one exchange", async () => {
    const user = discord.createUser({ username: 'appeal-elsewhere' });
    await buildMember(getDatabase().db, { discordId: user.id, username: 'appeal-elsewhere', status: 'limited_access' });
    const address = `198.19.78.${++ip}`;
    const start = await request(at(a)).get('/oauth/appeal').set('X-Forwarded-For', address).expect(303);
    const { code, state } = discord.authorizeAs(user.id, new URL(start.headers.location as string));
    issued.push({ code, state });
    const callback = (on: GatekeeperHandle, cookie: string) =>
      request(at(on)).get('/oauth/callback').query({ code, state }).set('X-Forwarded-For', address).set('Cookie', cookie);
    const appealOf = (on: GatekeeperHandle, cookie: string) =>
      request(at(on)).get('/api/appeal').set('X-Forwarded-For', address).set('Cookie', cookie);
    const since = Date.now();

    const [first, atOnce] = await Promise.all([callback(a, cookieOf(start)), callback(b, cookieOf(start))]);
    expect([first.status, first.headers.location, atOnce.status, atOnce.headers.location]).toEqual([303, '/appeal', 303, '/appeal']);
    // and once more after both ended, with the cookie from before (B), and with the first answer's (A)
    const later = await callback(b, cookieOf(start)).expect(303);
    const reload = await callback(a, cookieOf(first)).expect(303);
    for (const [on, answer] of [
      [a, first],
      [b, atOnce],
      [b, later],
      [a, reload],
    ] as const) {
      expect(answer.headers.location).toBe('/appeal');
      expect((await appealOf(on, cookieOf(answer) || cookieOf(first))).status).toBe(200);
    }
    expect(exchangesSince(since)).toBe(1);
  });

  it('keeps each outcome under a hash of the state, never the state or the code', async () => {
    const rows = (await getDatabase().query<Record<string, unknown>>('select * from sign_in_callbacks')).rows;
    const stored = JSON.stringify(rows);
    expect(rows.map((r) => r.state_hash).sort()).toEqual(
      issued.map((c) => crypto.createHash('sha256').update(c.state).digest('hex')).sort(),
    );
    for (const { code, state } of issued) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(state);
    }
  });
});
