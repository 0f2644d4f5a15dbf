import request from 'supertest';
import { describeEngines } from '../../test-support/database';
import { buildFingerprint, useTestGatekeeper } from '../../test-support/gatekeeper';
import { cookieOf } from '../../test-support/security-kit';

jest.setTimeout(60_000);

const TOKEN_ENDPOINT = /^\/oauth2\/token$/;

/**
 * The same OAuth callback twice, as browsers send it: a double click, two requests at once, a
 * reload of "Finishing sign-in…" (still at /oauth/callback?code=…), a reload after the sign-in
 * ended. Each lands where the first did for the same visitor, and Discord is asked for a token
 * once: its codes are single use, so a second exchange could only fail and lose the sign-in.
 */
describeEngines('the OAuth callback sent again', (getDatabase) => {
  const server = useTestGatekeeper(getDatabase, { TRUST_PROXY: 'loopback' });
  let ip = 0;
  afterEach(() => server.handle.discord.emulator!.faults.set('none'));

  /** A visitor who consented and went to Discord: the cookie as it stood then, and the callback's query for `username`. */
  async function atDiscord(username: string) {
    const { handle } = server;
    const address = `198.19.77.${++ip}`;
    const agent = request.agent(handle.url);
    const { body } = await agent.get('/api/consent/token').set('X-Forwarded-For', address).expect(200);
    await agent
      .post('/api/consent')
      .set('X-Forwarded-For', address)
      .send({ consent: true, token: body.token, ...buildFingerprint() })
      .expect(200);
    const start = await agent.get('/oauth/start').set('X-Forwarded-For', address).expect(303);
    const user = handle.discord.emulator!.createUser({ username });
    const { code, state } = handle.discord.emulator!.authorizeAs(user.id, new URL(start.headers.location as string));
    const cookie = cookieOf(start);
    const callback = (withCookie = cookie) =>
      request(handle.url).get('/oauth/callback').query({ code, state }).set('X-Forwarded-For', address).set('Cookie', withCookie);
    return { user, address, cookie, callback };
  }
  const exchangesSince = (since: number) => server.handle.discord.emulator!.state.requests({ route: TOKEN_ENDPOINT, since }).length;
  const members = async (discordId: string) =>
    Number(
      (await getDatabase().query<{ n: number }>('select count(*)::int as n from members where discord_id = $1', [discordId])).rows[0]!.n,
    );
  const verifiedBy = async (cookie: string, address: string) =>
    (await request(server.handle.url).get('/api/verification/vpn-status').set('Cookie', cookie).set('X-Forwarded-For', address)).status;

  it('two callbacks at once (a double click): both land on /rules, one token exchange, one verification', async () => {
    const v = await atDiscord('double-click');
    const since = Date.now();
    const [first, second] = await Promise.all([v.callback(), v.callback()]);
    expect([first.status, first.headers.location, second.status, second.headers.location]).toEqual([303, '/rules', 303, '/rules']);
    expect(exchangesSince(since)).toBe(1);
    expect(await members(v.user.id)).toBe(1);
    // whichever answer the browser kept, its cookie is the verified visitor's
    expect(await verifiedBy(cookieOf(first), v.address)).toBe(200);
    expect(await verifiedBy(cookieOf(second), v.address)).toBe(200);
  });

  it('the callback reloaded after it succeeded: /rules again, nothing redone', async () => {
    const v = await atDiscord('reload-after');
    const since = Date.now();
    const first = await v.callback().expect(303);
    expect(first.headers.location).toBe('/rules');
    const reload = await v.callback(cookieOf(first)).expect(303);
    expect(reload.headers.location).toBe('/rules');
    expect(await verifiedBy(cookieOf(reload) || cookieOf(first), v.address)).toBe(200);
    // the browser sent the cookie it had before the first answer (that answer's cookie lost): the same result
    const stale = await v.callback(v.cookie).expect(303);
    expect(stale.headers.location).toBe('/rules');
    expect(await verifiedBy(cookieOf(stale), v.address)).toBe(200);
    expect(exchangesSince(since)).toBe(1);
    expect(await members(v.user.id)).toBe(1);
  });

  it('"Finishing sign-in…" reloaded while Discord is slow: the same sign-in goes on and verifies the visitor, one exchange succeeding', async () => {
    const v = await atDiscord('reload-finishing');
    // 429s longer than the callback waits inline
    server.handle.discord.emulator!.faults.set('rate429', { routes: TOKEN_ENDPOINT, count: 3, retryAfterSeconds: 1 });
    const since = Date.now();
    const first = await v.callback();
    expect(first.status).toBe(200);
    expect(first.text).toContain('Finishing sign-in…');
    // the visitor presses reload: the browser sends /oauth/callback again with the cookie of the waiting page
    const reload = await v.callback(cookieOf(first));
    const landed =
      reload.status === 200
        ? await request(server.handle.url)
            .get('/oauth/finish')
            .set('Cookie', cookieOf(reload) || cookieOf(first))
            .set('X-Forwarded-For', v.address)
        : reload;
    expect([landed.status, landed.headers.location]).toEqual([303, '/rules']);
    expect(await verifiedBy(cookieOf(landed), v.address)).toBe(200);
    expect(server.handle.discord.emulator!.state.requests({ route: TOKEN_ENDPOINT, since, status: 200 })).toHaveLength(1);
    expect(await members(v.user.id)).toBe(1);
  });

  it('a sign-in Discord failed, sent again: the same page, Discord not asked again', async () => {
    const v = await atDiscord('failed-twice');
    server.handle.discord.emulator!.faults.set('error500', { routes: TOKEN_ENDPOINT });
    const first = await v.callback();
    server.handle.discord.emulator!.faults.set('none');
    expect(first.status).toBe(303);
    const since = Date.now();
    const again = await v.callback(cookieOf(first));
    expect(again.headers.location).toBe(first.headers.location);
    expect(exchangesSince(since)).toBe(0);
    expect(await members(v.user.id)).toBe(0);
  });
});
