import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildFingerprint, startTestGatekeeper } from '../../test-support/gatekeeper';
import type { GatekeeperHandle } from '../../server';

jest.setTimeout(60_000);

const TOKEN_ENDPOINT = /^\/oauth2\/token$/;

describeEngines('visitor flow: a rate-limited token endpoint loses no verification', (getDatabase) => {
  let handle: GatekeeperHandle;
  let ip = 0;
  const nextIp = () => `198.19.7.${++ip}`;

  beforeAll(async () => {
    await resetDatabase(getDatabase());
    ({ handle } = await startTestGatekeeper(getDatabase(), { TRUST_PROXY: 'loopback' }));
  });
  afterEach(() => handle.discord.emulator!.faults.set('none'));
  afterAll(async () => handle?.stop());

  /** Consent and /oauth/start as a browser; returns the agent and a fresh code for `username`. */
  async function signedInOnDiscord(username: string) {
    const agent = request.agent(handle.url);
    const address = nextIp();
    const get = (path: string) => agent.get(path).set('X-Forwarded-For', address);
    const { body } = await get('/api/consent/token').expect(200);
    await agent
      .post('/api/consent')
      .set('X-Forwarded-For', address)
      .send({ consent: true, token: body.token, ...buildFingerprint() })
      .expect(200);
    const start = await get('/oauth/start').expect(303);
    const authorize = new URL(start.headers.location as string);
    const emulator = handle.discord.emulator!;
    const user = emulator.createUser({ username });
    const { code, state } = emulator.authorizeAs(user.id, authorize);
    return { get, user, code, state };
  }

  async function memberCount(discordId: string) {
    return Number(
      (await getDatabase().query<{ n: number }>('select count(*)::int as n from members where discord_id = $1', [discordId])).rows[0]!.n,
    );
  }

  /** The session cookie's content, decoded: what a visitor (or anyone who reads it) can see. */
  function sessionContent(res: request.Response): string {
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    return cookies
      .map((c) => decodeURIComponent(c.split(';')[0]!.split('=').slice(1).join('=')))
      .map((v) => Buffer.from(v, 'base64').toString('utf8') + v)
      .join('\n');
  }

  it('shows "Finishing sign-in…" during a 429 burst and then verifies the visitor', async () => {
    const { get, user, code, state } = await signedInOnDiscord('burst-visitor');
    // four 429s asking for one second each: longer than the callback waits inline
    handle.discord.emulator!.faults.set('rate429', { routes: TOKEN_ENDPOINT, count: 4, retryAfterSeconds: 1 });

    const callback = await get('/oauth/callback').query({ code, state });
    expect(callback.status).toBe(200);
    expect(callback.headers['content-type']).toMatch(/text\/html/);
    expect(callback.text).toContain('Finishing sign-in…');
    expect(callback.text).toContain('url=/oauth/finish');
    expect(callback.text).not.toContain('<script');
    expect(callback.headers['content-security-policy']).toContain("script-src 'self'");
    expect(sessionContent(callback)).not.toContain(code);

    const statuses: number[] = [];
    let landed: string | undefined;
    for (let i = 0; i < 20 && !landed; i++) {
      const poll = await get('/oauth/finish');
      statuses.push(poll.status);
      if (poll.status === 303) landed = poll.headers.location as string;
      else expect(poll.text).toContain('Finishing sign-in…');
    }
    expect(landed).toBe('/rules');
    expect(statuses.every((s) => s === 200 || s === 303)).toBe(true);
    expect(handle.discord.emulator!.faults.injected.rate429).toBeGreaterThanOrEqual(4);
    expect(await memberCount(user.id)).toBe(1);
  });

  it('verifies at once, without the waiting page, when a short 429 fits the inline wait', async () => {
    const { get, user, code, state } = await signedInOnDiscord('short-burst-visitor');
    handle.discord.emulator!.faults.set('rate429', { routes: TOKEN_ENDPOINT, count: 1, retryAfterSeconds: 0.2 });
    const callback = await get('/oauth/callback').query({ code, state });
    expect(callback.status).toBe(303);
    expect(callback.headers.location).toBe('/rules');
    expect(await memberCount(user.id)).toBe(1);
  });

  it('keeps refusing a code Discord rejects (not a busy Discord) with /error', async () => {
    const { get, state } = await signedInOnDiscord('refused-visitor');
    const callback = await get('/oauth/callback').query({ code: 'not-a-real-code', state });
    expect(callback.status).toBe(303);
    expect(callback.headers.location).toBe('/error');
  });

  it('offers a one-click new sign-in, consent kept, when the code cannot be exchanged in time', async () => {
    const { get, user, code, state } = await signedInOnDiscord('starved-visitor');
    // Discord asks for a wait longer than the whole budget: no point keeping the visitor. The app's
    // shared queue then holds every exchange for that wait, so this runs after the tests that need Discord
    handle.discord.emulator!.faults.set('rate429', { routes: TOKEN_ENDPOINT, retryAfterSeconds: 600 });
    const callback = await get('/oauth/callback').query({ code, state });
    expect(callback.status).toBe(303);
    expect(callback.headers.location).toBe('/oauth/retry');
    expect(await memberCount(user.id)).toBe(0);

    const retry = await get('/oauth/retry').expect(200);
    expect(retry.text).toContain('<form method="get" action="/oauth/start">');
    expect(retry.text).toContain('Sign in again');
    expect(retry.text).not.toContain('<script');

    // the one click: straight back to Discord's authorize page, no new consent asked
    handle.discord.emulator!.faults.set('none');
    const again = await get('/oauth/start').expect(303);
    expect(new URL(again.headers.location as string).pathname).toMatch(/oauth2\/authorize$/);
  });

  it('sends a poll with no sign-in in the session to /error, never a 500', async () => {
    const res = await request(handle.url).get('/oauth/finish').set('X-Forwarded-For', nextIp());
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/error');
  });
});
