import request from 'supertest';
import { openPostgres } from '../db/client';
import { createMemorySetupCodeStore, SIGN_IN_GATE } from '../modules/staff';
import type { GatekeeperHandle } from '../server';
import { describeEngines, resetDatabase } from '../test-support/database';
import { buildFingerprint } from '../test-support/gatekeeper';
import { createStaffTestApp, TEST_SETUP_CODE } from '../test-support/staff-test-kit';
import { cookieOf, OWNER, OWNER_ADDRESS, ownerCookie, startSecurityGatekeeper } from '../test-support/security-kit';

/**
 * Sessions and single-use tokens on the real product, filling what the unit and route
 * tests leave open (staff-session.int.test.ts covers logout, password change, demotion,
 * deletion and expiry on the routers; visitor-flow.bad-input.int.test.ts a replayed state
 * and consent token in one session; setup.router.int.test.ts concurrent setups on one pool;
 * staff-auth.router.int.test.ts throttling with a small policy):
 *  - cookies forged with another installation's key, tampered visitor cookies, a visitor
 *    session used on staff routes, a logged-out cookie replayed;
 *  - OAuth: a state carried into another browser (login CSRF), an authorization code
 *    used twice, one state raced by parallel callbacks, a code for another PKCE challenge;
 *  - one consent token submitted in parallel;
 *  - setup raced by two servers on separate connection pools (PostgreSQL);
 *  - login brute force against the production throttle policy.
 */

jest.setTimeout(90_000);

describeEngines('security: sessions, replays and races', (getDatabase, engine) => {
  let handle: GatekeeperHandle;
  let address = 0;
  const nextAddress = () => `198.18.${50 + Math.floor(++address / 250)}.${(address % 250) + 1}`;

  beforeAll(async () => {
    await resetDatabase(getDatabase());
    handle = await startSecurityGatekeeper(getDatabase());
  });
  afterAll(async () => handle?.stop());

  const count = async (sql: string, params: unknown[] = []) => Number((await getDatabase().query<{ n: number }>(sql, params)).rows[0]!.n);

  /** Consent given and sign-in started in one browser: its agent, address and the authorize URL. */
  async function startSignIn() {
    const agent = request.agent(handle.url);
    const ip = nextAddress();
    const { body } = await agent.get('/api/consent/token').set('X-Forwarded-For', ip).expect(200);
    await agent
      .post('/api/consent')
      .set('X-Forwarded-For', ip)
      .send({ consent: true, token: body.token, ...buildFingerprint() })
      .expect(200);
    const start = await agent.get('/oauth/start').set('X-Forwarded-For', ip).expect(303);
    return { agent, ip, authorize: new URL(start.headers.location as string) };
  }

  function codeFor(userId: string, authorize: URL, challenge = authorize.searchParams.get('code_challenge')!) {
    return handle.discord.emulator!.issueAuthorizationCode({
      userId,
      clientId: authorize.searchParams.get('client_id')!,
      redirectUri: authorize.searchParams.get('redirect_uri')!,
      scope: authorize.searchParams.get('scope')!,
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
    });
  }

  const members = (discordId: string) => count('select count(*)::int as n from members where discord_id = $1', [discordId]);

  describe('staff and visitor sessions', () => {
    it('refuses a staff cookie signed by another installation, and one replayed after logout', async () => {
      const cookie = await ownerCookie(handle);
      await request(handle.url).get('/api/admin/session').set('Cookie', cookie).expect(200);

      // another installation: its own DATA_DIR, hence its own session key, same database
      const other = await startSecurityGatekeeper(getDatabase(), { env: { SERVICES: 'web' } });
      try {
        const foreign = cookieOf(
          await request(other.url).post('/api/staff/login').set('X-Forwarded-For', OWNER_ADDRESS).send(OWNER).expect(200),
        );
        await request(other.url).get('/api/admin/session').set('Cookie', foreign).expect(200);
        await request(handle.url).get('/api/admin/session').set('Cookie', foreign).expect(401);
      } finally {
        await other.stop();
      }

      const copy = cookie;
      await request(handle.url).post('/api/staff/logout').set('Cookie', cookie).expect(200);
      await request(handle.url).get('/api/admin/users').set('Cookie', copy).expect(401);
      await request(handle.url).delete('/api/admin/staff/1').set('Cookie', copy).expect(401);
    });

    it('ignores a tampered visitor cookie and never treats a visitor session as staff', async () => {
      const user = handle.discord.emulator!.createUser({ username: 'tamper' });
      const { agent, ip, authorize } = await startSignIn();
      const callback = await agent
        .get('/oauth/callback')
        .query({ code: codeFor(user.id, authorize), state: authorize.searchParams.get('state') })
        .set('X-Forwarded-For', ip)
        .expect(303);
      expect(callback.headers.location).toBe('/rules');
      const cookie = cookieOf(callback);
      await request(handle.url).get('/api/verification/vpn-status').set('Cookie', cookie).set('X-Forwarded-For', ip).expect(200);
      // a visitor session is not a staff session
      await request(handle.url).get('/api/admin/users').set('Cookie', cookie).expect(401);

      // rewrite the session to claim another member, keeping the old signature
      const session = /gk_session=([^;]+)/.exec(cookie)![1]!;
      const claims = JSON.parse(Buffer.from(session, 'base64').toString('utf8')) as { visitor: { verified: { discordId: string } } };
      expect(claims.visitor.verified.discordId).toBe(user.id);
      claims.visitor.verified.discordId = '300000000000000777';
      const forged = cookie.replace(session, Buffer.from(JSON.stringify(claims)).toString('base64'));
      const res = await request(handle.url).get('/api/verification/vpn-status').set('Cookie', forged).set('X-Forwarded-For', ip);
      expect(res.status).toBe(401);
      // or claim staff rights in the visitor cookie
      const staffClaim = Buffer.from(JSON.stringify({ ...claims, staffId: 1, epoch: 0, iat: Date.now() })).toString('base64');
      await request(handle.url).get('/api/admin/users').set('Cookie', cookie.replace(session, staffClaim)).expect(401);
    });
  });

  describe('OAuth state, code and PKCE', () => {
    it('refuses a state carried into another browser (login CSRF) and stores nothing', async () => {
      const attacker = handle.discord.emulator!.createUser({ username: 'csrf-attacker' });
      const started = await startSignIn();
      const victim = await startSignIn();
      // the attacker's state and code, delivered to the victim's browser
      const res = await victim.agent
        .get('/oauth/callback')
        .query({ code: codeFor(attacker.id, started.authorize), state: started.authorize.searchParams.get('state') })
        .set('X-Forwarded-For', victim.ip);
      expect(res.headers.location).toBe('/error');
      expect(await members(attacker.id)).toBe(0);
    });

    it('refuses an authorization code used twice', async () => {
      const user = handle.discord.emulator!.createUser({ username: 'code-twice' });
      const first = await startSignIn();
      const code = codeFor(user.id, first.authorize);
      const ok = await first.agent
        .get('/oauth/callback')
        .query({ code, state: first.authorize.searchParams.get('state') })
        .set('X-Forwarded-For', first.ip);
      expect(ok.headers.location).toBe('/rules');
      const second = await startSignIn();
      const replay = await second.agent
        .get('/oauth/callback')
        .query({ code, state: second.authorize.searchParams.get('state') })
        .set('X-Forwarded-For', second.ip);
      expect(replay.headers.location).toBe('/error');
      expect(await count('select verification_count as n from members where discord_id = $1', [user.id])).toBe(1);
    });

    it('refuses a code issued for another PKCE challenge', async () => {
      const user = handle.discord.emulator!.createUser({ username: 'pkce' });
      const { agent, ip, authorize } = await startSignIn();
      const stolen = codeFor(user.id, authorize, 'x'.repeat(43));
      const res = await agent
        .get('/oauth/callback')
        .query({ code: stolen, state: authorize.searchParams.get('state') })
        .set('X-Forwarded-For', ip);
      expect(res.headers.location).toBe('/error');
      expect(await members(user.id)).toBe(0);
    });

    it('lets exactly one of many parallel callbacks with one state through', async () => {
      const users = Array.from({ length: 5 }, (_, i) => handle.discord.emulator!.createUser({ username: `race-${i}` }));
      const { agent, ip, authorize } = await startSignIn();
      const state = authorize.searchParams.get('state');
      const results = await Promise.all(
        users.map((u) =>
          agent
            .get('/oauth/callback')
            .query({ code: codeFor(u.id, authorize), state })
            .set('X-Forwarded-For', ip),
        ),
      );
      expect(results.filter((r) => r.headers.location === '/rules')).toHaveLength(1);
      expect(results.every((r) => r.status === 303)).toBe(true);
      expect(await count('select count(*)::int as n from members where discord_id = any($1::text[])', [users.map((u) => u.id)])).toBe(1);
    });
  });

  it('accepts one consent token once, even when it is submitted many times at once', async () => {
    const agent = request.agent(handle.url);
    const ip = nextAddress();
    const { body } = await agent.get('/api/consent/token').set('X-Forwarded-For', ip).expect(200);
    const fingerprint = buildFingerprint();
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        agent
          .post('/api/consent')
          .set('X-Forwarded-For', ip)
          .send({ consent: true, token: body.token, ...fingerprint }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
  });

  it('throttles password guessing with the production policy, and the owner still signs in from its own address', async () => {
    await ownerCookie(handle); // the owner has signed in from OWNER_ADDRESS before: a known address
    const attacker = '203.0.113.200';
    const login = (password: string, ip: string) =>
      request(handle.url).post('/api/staff/login').set('X-Forwarded-For', ip).send({ username: OWNER.username, password });

    const guesses: number[] = [];
    for (let i = 0; i < 25; i++) guesses.push((await login(`guess-${i}`, attacker)).status);
    expect(guesses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(guesses.slice(5).every((s) => s === 429)).toBe(true);
    // even the right password is refused from the attacker's address now
    expect((await login(OWNER.password, attacker)).status).toBe(429);

    // a distributed attack: one guess each from 60 addresses fills the account's limit, yet the
    // correct password still signs in from an address the owner never used (after the fixed wait).
    // Sent in waves that the sign-in gate holds (SIGN_IN_GATE: 4 under way, 8 waiting), as a botnet
    // pacing itself below the flood pause would: a flood would pause every unknown device, this one too.
    const wave = SIGN_IN_GATE.concurrency + SIGN_IN_GATE.queueLimit;
    for (let first = 0; first < 60; first += wave) {
      await Promise.all(Array.from({ length: wave }, (_, i) => login(`spray-${first + i}`, `203.0.113.${first + i + 1}`)));
    }
    expect((await login(OWNER.password, '198.18.99.99')).status).toBe(200);
    const owner = await login(OWNER.password, OWNER_ADDRESS);
    expect(owner.status).toBe(200);
    // nothing about the attempts identifies the addresses
    const keys = (await getDatabase().query<{ key: string }>('select key from login_throttle')).rows.map((r) => r.key).join(' ');
    expect(keys).not.toContain('203.0.113');
  });

  (engine === 'postgres' ? it : it.skip)('creates one owner when two servers on separate connection pools race the setup', async () => {
    await resetDatabase(getDatabase());
    const url = (getDatabase().pool!.options as { connectionString: string }).connectionString;
    const second = await openPostgres({ url, poolMax: 5 });
    try {
      const apps = [getDatabase(), second, getDatabase(), second].map(
        (database) => createStaffTestApp(database, { setupCode: createMemorySetupCodeStore(TEST_SETUP_CODE) }).app,
      );
      const results = await Promise.all(
        apps.map((app, i) =>
          request(app)
            .post('/api/setup-admin')
            .send({ setupCode: TEST_SETUP_CODE, username: `racer${i}`, password: 'racer-password' }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
      expect(await count('select count(*)::int as n from staff where is_owner')).toBe(1);
      expect(await count('select count(*)::int as n from staff')).toBe(1);
    } finally {
      await second.close();
    }
  });
});
