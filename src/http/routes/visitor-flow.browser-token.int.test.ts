import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildFingerprint, startTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';
import type { GatekeeperHandle } from '../../server';

jest.setTimeout(60_000);

/**
 * The browser token through the real HTTP flow: set at consent, kept by the cookie and the
 * page's copy, stored as a keyed hash, and never trusted alone (docs/behaviour.md#alt-detection).
 */
describeEngines('visitor flow: the browser token', (getDatabase) => {
  let handle: GatekeeperHandle;
  let ip = 0;
  const nextNetwork = () => `198.18.${++ip}.10`;
  const TOKEN = /^[A-Za-z0-9_-]{43}$/;

  beforeAll(async () => {
    await resetDatabase(getDatabase());
    ({ handle } = await startTestGatekeeper(getDatabase(), { TRUST_PROXY: 'loopback' }));
  });
  afterAll(async () => handle?.stop());

  const newUser = (name: string) => handle.discord.emulator!.createUser({ username: name }).id;
  const cookieOf = (res: request.Response) =>
    ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('gk_browser='));

  async function links(discordId: string) {
    const { rows } = await getDatabase().query<{ confidence: string; detection_method: string; other: string }>(
      `select l.confidence, l.detection_method, case when m.discord_id = $1 then x.discord_id else m.discord_id end as other
         from alt_links l join members m on m.id = l.main_member_id join members x on x.id = l.alt_member_id where m.discord_id = $1 or x.discord_id = $1`,
      [discordId],
    );
    return rows;
  }

  it('is set at consent only, as an HttpOnly SameSite=Lax cookie of a year, and answered for the page', async () => {
    const agent = request.agent(handle.url);
    const address = nextNetwork();
    const tokenResponse = await agent.get('/api/consent/token').set('X-Forwarded-For', address).expect(200);
    expect(cookieOf(tokenResponse)).toBeUndefined();
    const res = await agent
      .post('/api/consent')
      .set('X-Forwarded-For', address)
      .send({ consent: true, token: tokenResponse.body.token, ...buildFingerprint() })
      .expect(200);
    expect(res.body.browserToken).toMatch(TOKEN);
    const cookie = cookieOf(res)!;
    expect(cookie).toContain(`gk_browser=${res.body.browserToken}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Max-Age=31536000/);
  });

  it.each([
    ['a tampered value', 'tampered<>token'],
    ['a number', 12345],
    ['an object', { token: 'x' }],
    ['null', null],
    ['a huge string', 'a'.repeat(20_000)],
  ])("ignores %s as the page's copy: consent is accepted with a fresh token, never a 500", async (_label, browserToken) => {
    const user = newUser(`bt-bad-${ip}`);
    const { landedOn, browserToken: answered } = await walkVisitorFlow(handle, { userId: user, forwardedFor: nextNetwork(), browserToken });
    expect(landedOn).toBe('/rules');
    expect(answered).toMatch(TOKEN);
  });

  it("ignores a tampered cookie, and the cookie follows the page's valid copy", async () => {
    const agent = request.agent(handle.url);
    const address = nextNetwork();
    const { body } = await agent.get('/api/consent/token').set('X-Forwarded-For', address).set('Cookie', 'gk_browser=%00%ff<>').expect(200);
    const pageCopy = 'P'.repeat(43);
    const res = await agent
      .post('/api/consent')
      .set('X-Forwarded-For', address)
      .set('Cookie', 'gk_browser=%00%ff<>')
      .send({ consent: true, token: body.token, ...buildFingerprint(), browserToken: pageCopy })
      .expect(200);
    expect(res.body.browserToken).toBe(pageCopy);
    expect(cookieOf(res)).toContain(`gk_browser=${pageCopy}`);
  });

  it('links two accounts of one browser profile as certain from different addresses; a copied token on another device links nobody', async () => {
    const device = buildFingerprint('bt-laptop');
    const first = await walkVisitorFlow(handle, { userId: newUser('bt-owner'), fingerprint: device, forwardedFor: nextNetwork() });
    // the same browser (same agent: same cookie), from another network
    const secondId = newUser('bt-owner-alt');
    await walkVisitorFlow(handle, { userId: secondId, fingerprint: device, forwardedFor: nextNetwork(), agent: first.agent });
    expect(await links(secondId)).toEqual([expect.objectContaining({ confidence: 'certain', detection_method: 'browser' })]);
    const { rows } = await getDatabase().query<{ browser_token_hash: string }>(
      'select browser_token_hash from verification_attempts where browser_token_hash is not null',
    );
    for (const row of rows) expect(row.browser_token_hash).not.toBe(first.browserToken);

    // a stranger replaying the owner's token from their own device and address
    const strangerId = newUser('bt-stranger');
    await walkVisitorFlow(handle, {
      userId: strangerId,
      fingerprint: buildFingerprint('bt-stranger-phone'),
      forwardedFor: nextNetwork(),
      browserToken: first.browserToken,
    });
    expect(await links(strangerId)).toEqual([]);
  });

  it('stops counting a token other members carried on more than three networks', async () => {
    const device = buildFingerprint('bt-shared-cookie-device');
    const token = 'S'.repeat(43);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = newUser(`bt-spread-${i}`);
      ids.push(id);
      await walkVisitorFlow(handle, { userId: id, fingerprint: device, forwardedFor: nextNetwork(), browserToken: token });
    }
    // the fourth account still met the token on three networks; the fifth meets it on four
    expect((await links(ids[3]!)).filter((l) => l.detection_method === 'browser')).toHaveLength(3);
    expect((await links(ids[4]!)).filter((l) => l.detection_method === 'browser' && l.other !== ids[4])).toEqual([]);
  });
});
