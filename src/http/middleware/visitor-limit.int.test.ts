import request from 'supertest';
import { describeEngines } from '../../test-support/database';
import { buildFingerprint, useTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';
import { mountedRoutes } from '../../test-support/security-kit';
import { ADDRESS_BUDGET, CLASS_SIZE, NEWCOMER_BUDGET, SESSION_BUDGET, VISITOR_FLOW_REQUESTS } from './visitor-limit';

jest.setTimeout(120_000);

/**
 * The visitor routes' limit through the whole product: a class behind one address gets in,
 * one address flooding without a session (or with a new one each time) is held back, one
 * browser hammering does not shut out its classmates, and a refusal says its true wait: as
 * a page that reloads itself for a browser navigation, as JSON with a matching Retry-After
 * for an API call.
 */
describeEngines('visitor limits: per session and per address', (getDatabase) => {
  const server = useTestGatekeeper(getDatabase, { TRUST_PROXY: 'loopback' });
  let network = 0;
  /** an address of its own per test, as a school's NAT would be */
  const nextAddress = () => `203.0.113.${++network}`;

  it('limits exactly the requests of the visitor flow (and the appeal sign-in), each once per flow', () => {
    const { handle } = server;
    const limiter = handle.services.routers.api[0]!.stack.find((l) => l.route?.path === '/consent/token')!.route!.stack[0]!.handle;
    const limited = [
      ...handle.services.routers.api.map((r) => ({ r, prefix: '/api' })),
      ...handle.services.routers.root.map((r) => ({ r, prefix: '' })),
    ].flatMap(({ r, prefix }) =>
      r.stack
        .filter((layer) => layer.route?.stack.some((s) => s.handle === limiter))
        .flatMap((layer) =>
          Object.keys((layer.route as unknown as { methods: Record<string, boolean> }).methods).map(
            (m) => `${m.toUpperCase()} ${prefix}${String(layer.route!.path)}`,
          ),
        ),
    );
    // the appeal sign-in and the Linked Roles sign-in start a Discord sign-in as the flow does
    expect(limited.sort()).toEqual([...VISITOR_FLOW_REQUESTS, 'GET /oauth/appeal', 'GET /linked-roles'].sort());
    // every one of them is a route the product mounts
    expect(mountedRoutes(handle).map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining([...VISITOR_FLOW_REQUESTS]));
  });

  it(`lets a class of ${CLASS_SIZE} behind one address all verify, one after another without waiting`, async () => {
    const { handle } = server;
    const address = nextAddress();
    const landed: string[] = [];
    for (let i = 0; i < CLASS_SIZE; i++) {
      const user = handle.discord.emulator!.createUser({ username: `pupil${i}` });
      const { landedOn } = await walkVisitorFlow(handle, {
        userId: user.id,
        forwardedFor: address,
        confirmRules: true,
        fingerprint: buildFingerprint(`pupil-device-${i}`),
      });
      landed.push(landedOn);
    }
    expect(landed.filter((l) => l === '/rules').length).toBe(CLASS_SIZE);
  });

  it('holds back one address flooding without a session, or with a new session each time', async () => {
    const address = nextAddress();
    const statuses: number[] = [];
    for (let i = 0; i < NEWCOMER_BUDGET.capacity + 10; i++)
      statuses.push((await request(server.handle.url).get('/api/consent/token').set('X-Forwarded-For', address)).status);
    // the newcomers' budget (and a token or two refilled while the loop ran), then refusals
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(NEWCOMER_BUDGET.capacity);
    expect(statuses.filter((s) => s === 200).length).toBeLessThan(NEWCOMER_BUDGET.capacity + 5);
    expect(statuses.slice(-3)).toEqual([429, 429, 429]);
    // a visitor of another network is untouched
    await request(server.handle.url).get('/api/consent/token').set('X-Forwarded-For', nextAddress()).expect(200);
  });

  it('holds back one browser hammering, without shutting out the others on its address; the address as a whole is limited too', async () => {
    const address = nextAddress();
    const hammer = request.agent(server.handle.url);
    const statuses: number[] = [];
    for (let i = 0; i < SESSION_BUDGET.capacity + 5; i++)
      statuses.push((await hammer.get('/api/consent/token').set('X-Forwarded-For', address)).status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThan(SESSION_BUDGET.capacity + 3);
    const refused = await hammer.get('/api/consent/token').set('X-Forwarded-For', address);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/from this browser/);
    // a classmate behind the same address still verifies
    const user = server.handle.discord.emulator!.createUser({ username: 'classmate' });
    expect((await walkVisitorFlow(server.handle, { userId: user.id, forwardedFor: address })).landedOn).toBe('/rules');
    // many browsers from the address, each with its own session, spend the address's budget: then every one is refused
    let addressRefusal: request.Response | undefined;
    for (let i = 0; i < ADDRESS_BUDGET.capacity && !addressRefusal; i++) {
      const browser = request.agent(server.handle.url);
      for (let j = 0; j < SESSION_BUDGET.capacity && !addressRefusal; j++) {
        const res = await browser.get('/api/consent/token').set('X-Forwarded-For', address);
        if (res.status === 429 && /network/.test(res.body.error)) addressRefusal = res;
      }
    }
    expect(addressRefusal?.body.error).toMatch(/from your network/);
  });

  it('answers a limited API call with JSON whose text states the Retry-After, and a limited page with a page that waits as long and reloads', async () => {
    const address = nextAddress();
    for (let i = 0; i < NEWCOMER_BUDGET.capacity + 2; i++)
      await request(server.handle.url).get('/api/consent/token').set('X-Forwarded-For', address);
    const api = await request(server.handle.url)
      .get('/api/consent/token')
      .set('X-Forwarded-For', address)
      .set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(api.status).toBe(429);
    expect(api.headers['content-type']).toMatch(/^application\/json/);
    const seconds = Number(api.headers['retry-after']);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(api.body).toEqual({
      error: `Too many verification attempts from your network: please try again in ${seconds} second${seconds === 1 ? '' : 's'}`,
      code: 'rate_limited',
    });

    // Discord sending the browser back to the callback, or the visitor opening /oauth/start
    for (const [path, headers] of [
      ['/oauth/callback?code=abc&state=def', { 'Sec-Fetch-Mode': 'navigate', Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }],
      ['/oauth/start', { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }],
    ] as const) {
      const page = await request(server.handle.url).get(path).set('X-Forwarded-For', address).set(headers);
      expect(page.status).toBe(429);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-store');
      const wait = Number(page.headers['retry-after']);
      expect(page.text).toContain(`<meta http-equiv="refresh" content="${wait}">`);
      expect(page.text).toContain(`please try again in ${wait} second${wait === 1 ? '' : 's'}`);
      expect(page.text).toContain(`This page tries again by itself in ${wait} second${wait === 1 ? '' : 's'}.`);
      expect(page.text).not.toMatch(/"error"|wait a minute/);
    }
    // a script calling the same root route keeps JSON
    const script = await request(server.handle.url).get('/oauth/start').set('X-Forwarded-For', address).set('Sec-Fetch-Mode', 'cors');
    expect(script.headers['content-type']).toMatch(/^application\/json/);
  });

  it('gives the budgets back with time: a refused address verifies again once its wait has passed', async () => {
    const address = nextAddress();
    for (let i = 0; i < NEWCOMER_BUDGET.capacity + 2; i++)
      await request(server.handle.url).get('/api/consent/token').set('X-Forwarded-For', address);
    const refused = await request(server.handle.url).get('/api/consent/token').set('X-Forwarded-For', address).expect(429);
    server.clock.advance(Number(refused.headers['retry-after']) * 1000);
    const user = server.handle.discord.emulator!.createUser({ username: 'after-the-wait' });
    expect((await walkVisitorFlow(server.handle, { userId: user.id, forwardedFor: address })).landedOn).toBe('/rules');
  });
});
