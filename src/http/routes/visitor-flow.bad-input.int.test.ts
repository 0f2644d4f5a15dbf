import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildFingerprint, startTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';
import type { GatekeeperHandle } from '../../server';
import { NEWCOMER_BUDGET } from '../middleware/visitor-limit';

jest.setTimeout(60_000);

const TABLES = ['members', 'verification_attempts', 'alt_links', 'discord_outbox', 'audit_log'];

describeEngines('visitor flow: bad input writes nothing', (getDatabase) => {
  let handle: GatekeeperHandle;
  let clock: Awaited<ReturnType<typeof startTestGatekeeper>>['clock'];
  let ip = 0;
  // a distinct client address per test, so the per-address rate limit does not interfere
  const nextIp = () => `198.18.${Math.floor(++ip / 250)}.${ip % 250}`;

  beforeAll(async () => {
    await resetDatabase(getDatabase());
    ({ handle, clock } = await startTestGatekeeper(getDatabase(), { TRUST_PROXY: 'loopback' }));
  });
  afterAll(async () => handle?.stop());

  async function counts() {
    const result: Record<string, number> = {};
    for (const table of TABLES)
      result[table] = Number((await getDatabase().query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n);
    return result;
  }
  function visitor() {
    const agent = request.agent(handle.url);
    const address = nextIp();
    return {
      get: (path: string) => agent.get(path).set('X-Forwarded-For', address),
      post: (path: string) => agent.post(path).set('X-Forwarded-For', address),
      async token() {
        return (await agent.get('/api/consent/token').set('X-Forwarded-For', address).expect(200)).body.token as string;
      },
    };
  }

  it.each([
    ['no body', {}, 'consent'],
    ['consent false', { consent: false }, 'consent'],
    ['a missing fingerprint', { consent: true, token: 'x' }, 'fingerprintData'],
  ])('rejects consent with %s', async (_name, body, field) => {
    const v = visitor();
    await v.token();
    const res = await v.post('/api/consent').send(body);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it('rejects a token that is not this session’s, a replayed token and an expired token', async () => {
    const before = await counts();
    const other = visitor();
    const foreign = await other.token();
    const v = visitor();
    await v.token();
    const fp = buildFingerprint();
    const stolen = await v.post('/api/consent').send({ consent: true, token: foreign, ...fp });
    expect(stolen.status).toBe(400);
    expect(stolen.body).toMatchObject({ error: 'Invalid or expired consent token', field: 'token' });

    const mine = await v.token();
    await v
      .post('/api/consent')
      .send({ consent: true, token: mine, ...fp })
      .expect(200);
    const replay = await v.post('/api/consent').send({ consent: true, token: mine, ...fp });
    expect(replay.status).toBe(400);

    const late = visitor();
    const expiring = await late.token();
    clock.advance(11 * 60 * 1000);
    const expired = await late.post('/api/consent').send({ consent: true, token: expiring, ...fp });
    expect(expired.status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it('rejects forged or oversized fingerprint data and a hash mismatch, without using up the token', async () => {
    const v = visitor();
    const token = await v.token();
    const fp = buildFingerprint();
    const extraKey = await v
      .post('/api/consent')
      .send({ consent: true, token, fingerprintData: { ...fp.fingerprintData, evil: 'x' }, fingerprintHash: fp.fingerprintHash });
    expect(extraKey.status).toBe(400);
    const oversized = await v.post('/api/consent').send({
      consent: true,
      token,
      fingerprintData: { ...fp.fingerprintData, canvas: 'a'.repeat(5000) },
      fingerprintHash: fp.fingerprintHash,
    });
    expect(oversized.status).toBe(400);
    const notString = await v
      .post('/api/consent')
      .send({ consent: true, token, fingerprintData: { ...fp.fingerprintData, audio: 42 }, fingerprintHash: fp.fingerprintHash });
    expect(notString.status).toBe(400);
    const mismatch = await v.post('/api/consent').send({ consent: true, token, ...fp, fingerprintHash: '0'.repeat(32) });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({ field: 'fingerprintHash' });
    const badHash = await v.post('/api/consent').send({ consent: true, token, ...fp, fingerprintHash: 'XYZ' });
    expect(badHash.status).toBe(400);
    // none of the failures spent the token
    await v
      .post('/api/consent')
      .send({ consent: true, token, ...fp })
      .expect(200);
  });

  it('sends /oauth/start without consent back to the consent page', async () => {
    const res = await visitor().get('/oauth/start');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
  });

  async function consentedAndStarted() {
    const v = visitor();
    const token = await v.token();
    await v
      .post('/api/consent')
      .send({ consent: true, token, ...buildFingerprint() })
      .expect(200);
    const start = await v.get('/oauth/start').expect(303);
    const authorize = new URL(start.headers.location as string);
    const user = handle.discord.emulator!.createUser({ username: `bad${ip}` });
    const code = () => handle.discord.emulator!.authorizeAs(user.id, authorize).code;
    return { v, state: authorize.searchParams.get('state')!, code };
  }

  it.each([
    ['a missing state', (s: string, c: string) => ({ code: c })],
    ['a forged state', (_s: string, c: string) => ({ code: c, state: 'forged-state-value' })],
    ['the provider’s error (denied consent)', (s: string) => ({ error: 'access_denied', state: s })],
    ['a code Discord refuses', (s: string) => ({ code: 'not-a-real-code', state: s })],
    ['no code at all', (s: string) => ({ state: s })],
  ])('sends a callback with %s to /error and stores nothing', async (_name, query) => {
    const before = await counts();
    const { v, state, code } = await consentedAndStarted();
    const res = await v.get('/oauth/callback').query(query(state, code()));
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/error');
    expect(await counts()).toEqual(before);
  });

  it('refuses a replayed OAuth state', async () => {
    const { v, state, code } = await consentedAndStarted();
    const first = await v.get('/oauth/callback').query({ code: code(), state });
    expect(first.headers.location).toBe('/rules');
    const before = await counts();
    const replay = await v.get('/oauth/callback').query({ code: code(), state });
    expect(replay.headers.location).toBe('/error');
    expect(await counts()).toEqual(before);
  });

  it('answers rules confirmation and VPN status without a verification with a 401', async () => {
    const v = visitor();
    const rules = await v.post('/api/rules/confirm');
    expect(rules.status).toBe(401);
    expect(rules.body.error).toMatch(/No verification in progress/);
    expect((await v.get('/api/verification/vpn-status')).status).toBe(401);
  });

  it('rate-limits one address hammering the visitor endpoints', async () => {
    const address = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < NEWCOMER_BUDGET.capacity + 10; i++)
      statuses.push((await request(handle.url).get('/api/consent/token').set('X-Forwarded-For', address)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const limited = await request(handle.url).get('/api/consent/token').set('X-Forwarded-For', address);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.body.error).toMatch(/Too many/);
    // another address is unaffected
    await request(handle.url).get('/api/consent/token').set('X-Forwarded-For', nextIp()).expect(200);
  });

  it('still completes a whole flow for a well-behaved visitor', async () => {
    const user = handle.discord.emulator!.createUser({ username: 'wellbehaved' });
    const { landedOn } = await walkVisitorFlow(handle, { userId: user.id, confirmRules: true, forwardedFor: nextIp() });
    expect(landedOn).toBe('/rules');
  });
});
