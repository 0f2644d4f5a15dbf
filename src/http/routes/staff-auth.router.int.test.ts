import request from 'supertest';
import {
  createBoundedQueue,
  createSignInGate,
  DEFAULT_LOGIN_THROTTLE,
  DEVICE_COOKIE,
  type LoginThrottlePolicy,
  inlineBcrypt,
  type BcryptRunner,
} from '../../modules/staff';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, seedTeam, TEAM } from '../../test-support/staff-test-kit';

const OWNER_HOME = '203.0.113.10';
const ATTACKER = '192.0.2.66';

/** Small limits so the tests stay short; the shape is the production policy's. */
const POLICY: LoginThrottlePolicy = {
  pair: { limit: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000 },
  client: { limit: 12, windowMs: 15 * 60_000, blockMs: 15 * 60_000 },
  global: { limit: 40, windowMs: 5 * 60_000, blockMs: 5 * 60_000 },
  account: { limit: 10, windowMs: 15 * 60_000 },
  knownClientMs: DEFAULT_LOGIN_THROTTLE.knownClientMs,
  slowDownMs: 200,
};

describeEngines('staff login', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;

  /** every bcrypt call the app makes, counted: a refused attempt must never reach the hash */
  let bcryptCalls = 0;
  const countingBcrypt = (inner: BcryptRunner = inlineBcrypt()): BcryptRunner => ({
    hash: (password, cost) => ((bcryptCalls += 1), inner.hash(password, cost)),
    compare: (password, hash) => ((bcryptCalls += 1), inner.compare(password, hash)),
    close: () => inner.close(),
  });

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    bcryptCalls = 0;
    kit = createStaffTestApp(getDatabase(), { loginThrottle: POLICY, bcrypt: countingBcrypt() });
    await seedTeam(getDatabase().db);
  });

  const login = (username: string, password: string, ip = OWNER_HOME) =>
    request(kit.app).post('/api/staff/login').set('X-Forwarded-For', ip).send({ username, password });
  const auditActions = async () =>
    (await getDatabase().query<{ action: string }>('select action from audit_log order by id')).rows.map((r) => r.action);

  describe('credentials', () => {
    it('signs in and reports the session', async () => {
      const agent = request.agent(kit.app);
      const res = await agent.post('/api/staff/login').send({ username: 'Owner', password: TEAM.owner.password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      expect((await agent.get('/api/admin/session')).body).toEqual({ username: 'Owner', staffId: 1, isSuperAdmin: true, isOwner: true });
      expect(await auditActions()).toEqual(['staff.login']);
    });

    it('matches the username case-insensitively', async () => {
      expect((await login('oWnEr', TEAM.owner.password)).status).toBe(200);
    });

    it.each([
      ['a wrong password', 'Owner', 'wrong-password', 'wrong_password'],
      ['an unknown username', 'nobody', 'whatever-pass', 'unknown_username'],
      ['a password over 72 bytes sharing the real prefix', 'Owner', `${TEAM.owner.password}${'x'.repeat(80)}`, 'wrong_password'],
    ])('answers 401 Invalid credentials for %s, audited without the password', async (_case, username, password, reason) => {
      const res = await login(username, password);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: 'Invalid credentials' });
      expect(res.headers['set-cookie']).toBeUndefined();
      const rows = (
        await getDatabase().query<{ action: string; target_id: string | null; details: Record<string, unknown> }>(
          'select action, target_id, details from audit_log',
        )
      ).rows;
      expect(rows).toEqual([{ action: 'staff.login_failed', target_id: reason === 'wrong_password' ? '1' : null, details: { reason } }]);
      expect(JSON.stringify(rows)).not.toContain(password.slice(0, 10));
      expect(JSON.stringify(rows)).not.toContain('nobody');
    });

    it.each([
      [{ password: 'x' }, 'Username is required', 'username'],
      [{ username: '', password: 'x' }, 'Username is required', 'username'],
      [{ username: 'Owner' }, 'Password is required', 'password'],
      [{ username: 'Owner', password: '' }, 'Password is required', 'password'],
    ])('requires both fields: %j', async (body, error, field) => {
      const res = await request(kit.app).post('/api/staff/login').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, field });
    });
  });

  describe('throttling', () => {
    it('blocks a (username, address) pair after 5 failures, even with the right password', async () => {
      for (let i = 0; i < 5; i++) expect((await login('Owner', 'guess', ATTACKER)).status).toBe(401);
      const blocked = await login('Owner', TEAM.owner.password, ATTACKER);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(await auditActions()).toContain('staff.login_throttled');
    });

    it('lets the owner in from its own address while an attacker hammers from another', async () => {
      for (let i = 0; i < 30; i++) await login('Owner', `guess-${i}`, ATTACKER);
      expect((await login('Owner', 'guess', ATTACKER)).status).toBe(429);
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200);
    });

    it('slows an account under distributed attack for unknown addresses only, and never locks the owner out', async () => {
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200); // the owner's usual address
      for (let i = 0; i < 11; i++) await login('Owner', 'guess', `192.0.2.${100 + i}`); // 11 addresses, 1 try each
      const started = Date.now();
      expect((await login('Owner', TEAM.owner.password, '198.51.100.200')).status).toBe(200); // new address: in, after the fixed wait
      expect(Date.now() - started).toBeGreaterThanOrEqual(POLICY.slowDownMs);
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200); // known address: in
      expect((await login('Mod', TEAM.mod.password, '198.51.100.200')).status).toBe(200); // other accounts unaffected
    });

    it('refuses an address spraying many usernames, with the wait in the text and Retry-After, without hashing', async () => {
      for (let i = 0; i < 12; i++) expect((await login(`user${i}`, 'guess', ATTACKER)).status).toBe(401);
      const hashed = bcryptCalls;
      const refused = await login('user-new', 'guess', ATTACKER);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        error: 'Too many failed sign-ins from your address. Try again in 15 minutes.',
        code: 'rate_limited',
      });
      expect(refused.headers['retry-after']).toBe('900');
      expect((await login('Mod', TEAM.mod.password, ATTACKER)).status).toBe(429); // a staff member new to that address waits too
      expect(bcryptCalls).toBe(hashed);
      expect(await auditActions()).toContain('staff.login_throttled');
      expect((await login('Mod', TEAM.mod.password, OWNER_HOME)).status).toBe(200); // other addresses are unaffected
      kit.clock.advance(POLICY.client.blockMs);
      expect((await login('Mod', TEAM.mod.password, ATTACKER)).status).toBe(200);
    });

    it('still lets in staff who signed in before from the spraying address', async () => {
      expect((await login('Owner', TEAM.owner.password, ATTACKER)).status).toBe(200); // the owner's office, shared with the sprayer
      for (let i = 0; i < 20; i++) await login(`user${i}`, 'guess', ATTACKER);
      expect((await login('user-new', 'guess', ATTACKER)).status).toBe(429);
      expect((await login('Owner', 'typo', ATTACKER)).status).toBe(401); // the password is still checked
      expect((await login('Owner', TEAM.owner.password, ATTACKER)).status).toBe(200);
    });

    it('refuses everyone not known when failures spike across addresses, and lets the owner in from a device that signed in before', async () => {
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200);
      // 45 addresses, a different made-up username each: no address reaches its own limit
      const statuses = [];
      for (let i = 0; i < 45; i++) statuses.push((await login(`user${i}`, 'guess', `198.51.100.${i + 1}`)).status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(40);
      expect(statuses.slice(40)).toEqual([429, 429, 429, 429, 429]);
      const refused = await login('Mod', TEAM.mod.password, '192.0.2.200');
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe(
        'Sign-in is paused after many failed attempts from many places. Staff who signed in from this address before can still sign in. Try again in 5 minutes.',
      );
      expect(refused.headers['retry-after']).toBe('300');
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200);
      kit.clock.advance(POLICY.global.blockMs);
      expect((await login('Mod', TEAM.mod.password, '192.0.2.200')).status).toBe(200);
    });

    it('answers 429 with Retry-After at once when password checks are queued to their limit, except for a client that signed in before', async () => {
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding = false;
      const queue = createBoundedQueue({ concurrency: 1, queueLimit: 1 });
      const hold = async () => void (holding && (await held));
      const slow: BcryptRunner = {
        hash: (password, cost) => queue.run(async () => (await hold(), inlineBcrypt().hash(password, cost))),
        compare: (password, hash, options) => queue.run(async () => (await hold(), inlineBcrypt().compare(password, hash)), options),
        close: async () => {},
      };
      kit = createStaffTestApp(getDatabase(), { loginThrottle: POLICY, bcrypt: slow });
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200); // the owner's device, known from here on
      holding = true;
      const first = login('Owner', TEAM.owner.password, '192.0.2.1');
      const second = login('Mod', TEAM.mod.password, '192.0.2.2');
      const started = first.then((r) => r);
      const waiting = second.then((r) => r);
      // both reach the queue: one runs, one waits
      for (let i = 0; queue.running + queue.waiting < 2 && i < 1000; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(queue.waiting).toBe(1);
      const busy = await login('Owner', TEAM.owner.password, '192.0.2.3');
      expect(busy.status).toBe(429);
      expect(busy.body).toMatchObject({ error: 'The server is busy checking passwords. Try again in 2 seconds.', code: 'busy' });
      expect(busy.headers['retry-after']).toBe('2');
      let ownerAnswered = false;
      const owner = login('Owner', TEAM.owner.password, OWNER_HOME).then((r) => ((ownerAnswered = true), r));
      while (queue.waiting < 2 && !ownerAnswered) await new Promise((resolve) => setTimeout(resolve, 10));
      release();
      const ownerAnswer = await owner;
      expect([ownerAnswer.status, ownerAnswer.body]).toEqual([200, { success: true }]);
      expect((await started).status).toBe(200);
      expect((await waiting).status).toBe(200);
    });

    it('never checks more passwords than the limit when attempts arrive at once', async () => {
      const results = await Promise.all(Array.from({ length: 15 }, () => login('Owner', 'guess', ATTACKER)));
      const counts = results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
      expect(counts).toEqual({ 401: 5, 429: 10 });
    });

    it('lifts the block when it expires', async () => {
      for (let i = 0; i < 6; i++) await login('Owner', 'guess', ATTACKER);
      expect((await login('Owner', TEAM.owner.password, ATTACKER)).status).toBe(429);
      kit.clock.advance(POLICY.pair.blockMs + 1000);
      expect((await login('Owner', TEAM.owner.password, ATTACKER)).status).toBe(200);
    });

    it('forgives earlier typos after a successful login', async () => {
      for (let i = 0; i < 4; i++) await login('Mod', 'typo', OWNER_HOME);
      expect((await login('Mod', TEAM.mod.password, OWNER_HOME)).status).toBe(200);
      for (let i = 0; i < 4; i++) expect((await login('Mod', 'typo', OWNER_HOME)).status).toBe(401);
      expect((await login('Mod', TEAM.mod.password, OWNER_HOME)).status).toBe(200);
    });

    it('keeps no address or typed username in the throttle table', async () => {
      await login('someone-typed-a-secret', 'guess', ATTACKER);
      const keys = (await getDatabase().query<{ key: string }>('select key from login_throttle')).rows.map((r) => r.key).join(' ');
      expect(keys).not.toContain(ATTACKER);
      expect(keys).not.toContain('someone');
    });
  });
  describe('the device cookie', () => {
    const deviceOf = (res: request.Response) =>
      ((res.headers['set-cookie'] as unknown as string[] | undefined) ?? []).find((cookie) => cookie.startsWith(`${DEVICE_COOKIE}=`));
    const withDevice = (device: string, username: string, password: string, ip: string) =>
      request(kit.app)
        .post('/api/staff/login')
        .set('X-Forwarded-For', ip)
        .set('Cookie', device.split(';')[0]!)
        .send({ username, password });
    /** an app whose gate lets one unknown sign-in through at a time and queues none; `hold` fills it */
    const smallGate = () => {
      const gate = createSignInGate({ concurrency: 1, queueLimit: 0 });
      kit = createStaffTestApp(getDatabase(), { loginThrottle: POLICY, bcrypt: countingBcrypt(), signInGate: gate });
      return {
        hold() {
          let release: () => void = () => {};
          void gate.run(() => new Promise<void>((resolve) => (release = resolve)));
          return () => release();
        },
      };
    };

    it('is set on a successful sign-in only: HttpOnly, SameSite=Strict, for the sign-in path, long-lived', async () => {
      expect(deviceOf(await login('Owner', 'wrong-password'))).toBeUndefined();
      const cookie = deviceOf(await login('Owner', TEAM.owner.password));
      expect(cookie).toMatch(/^gk_staff_device=1\.1\.\d+\.[\w-]+\.[\w-]+; /);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Strict/);
      expect(cookie).toMatch(/; Path=\/api\/staff(;|$)/);
      expect(cookie).toMatch(/; Max-Age=7776000(;|$)/);
      expect(cookie).not.toContain(OWNER_HOME);
    });

    it("lets the account's own device past a full gate; an unknown, tampered or other account's device is refused at once", async () => {
      const gate = smallGate();
      const device = deviceOf(await login('Owner', TEAM.owner.password))!;
      const release = gate.hold();
      // from an address the owner never signed in from: not a known client there
      const busy = await login('Owner', TEAM.owner.password, '192.0.2.60');
      expect([busy.status, busy.body.error, busy.headers['retry-after']]).toEqual([
        429,
        'The server is busy checking passwords. Try again in 2 seconds.',
        '2',
      ]);
      const tampered = device.replace(/^(gk_staff_device=1\.)1\./, '$13.');
      expect((await withDevice(tampered, 'Owner', TEAM.owner.password, '192.0.2.60')).status).toBe(429);
      expect((await withDevice(device, 'Mod', TEAM.mod.password, OWNER_HOME)).status).toBe(429);
      const owner = await withDevice(device, 'Owner', TEAM.owner.password, '198.51.100.7');
      expect(owner.status).toBe(200);
      expect(deviceOf(owner)).toBeDefined(); // a fresh one
      release();
    });

    it('lets a known client past a full gate without a device cookie, as before device cookies', async () => {
      const gate = smallGate();
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200); // the cookie is not kept
      const release = gate.hold();
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200);
      expect((await login('Owner', TEAM.owner.password, '192.0.2.50')).status).toBe(429);
      expect((await login('Mod', TEAM.mod.password, OWNER_HOME)).status).toBe(429);
      release();
    });

    it('pauses unknown devices after a flood of busy refusals, those waiting included; the own device and known clients still sign in', async () => {
      const gate = createSignInGate({ concurrency: 1, queueLimit: 1 });
      const flood = { refusals: 3, windowMs: 60_000, pauseMs: 5 * 60_000 };
      kit = createStaffTestApp(getDatabase(), { loginThrottle: POLICY, bcrypt: countingBcrypt(), signInGate: gate, signInFlood: flood });
      const device = deviceOf(await login('Owner', TEAM.owner.password))!;
      let release: () => void = () => {};
      void gate.run(() => new Promise<void>((resolve) => (release = resolve)));
      const waiting = login('Mod', TEAM.mod.password, '192.0.2.70').then((res) => res); // sent now, queued behind the held place
      await new Promise((resolve) => setTimeout(resolve, 50));
      const calls = bcryptCalls;
      const busy = [];
      for (const i of [1, 2, 3]) busy.push((await login(`spray-${i}`, 'guess-password', `192.0.2.${80 + i}`)).status);
      expect(busy).toEqual([429, 429, 429]); // the third started the pause
      const paused = await login('Mod', TEAM.mod.password, '192.0.2.90');
      expect([paused.status, paused.body.error, paused.headers['retry-after']]).toEqual([
        429,
        'Sign-in is paused after a flood of sign-ins from unknown places. Staff who signed in from this browser or address before can still sign in. Try again in 5 minutes.',
        '300',
      ]);
      release();
      // the one that waited through the flood's start gets the pause too, without a password check
      expect((await waiting).status).toBe(429);
      expect(bcryptCalls).toBe(calls);
      expect((await withDevice(device, 'Owner', TEAM.owner.password, '198.51.100.7')).status).toBe(200);
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200); // a known client
      expect((await auditActions()).filter((action) => action === 'staff.login_throttled')).toHaveLength(1);
      kit.clock.advance(flood.pauseMs);
      expect((await login('Mod', TEAM.mod.password, '192.0.2.90')).status).toBe(200);
    });

    it('makes the device a known client from any address during a pause, until the password changes', async () => {
      const device = deviceOf(await login('Owner', TEAM.owner.password))!;
      for (let i = 0; i < 45; i++) await login(`user${i}`, 'guess', `198.51.100.${i + 1}`);
      expect((await login('Owner', TEAM.owner.password, '192.0.2.200')).status).toBe(429); // global pause
      const fromPhone = await withDevice(device, 'Owner', TEAM.owner.password, '192.0.2.200');
      expect(fromPhone.status).toBe(200);
      // a new password voids every device cookie issued before it
      const agent = request.agent(kit.app);
      expect((await agent.post('/api/staff/login').set('X-Forwarded-For', OWNER_HOME).send(TEAM.owner)).status).toBe(200);
      const changed = await agent
        .post('/api/admin/me/password')
        .send({ currentPassword: TEAM.owner.password, newPassword: 'owner-new-password' });
      expect(changed.status).toBe(200);
      for (const old of [device, deviceOf(fromPhone)!])
        expect((await withDevice(old, 'Owner', 'owner-new-password', '192.0.2.201')).status).toBe(429);
    });

    it('gives a device its own limit of failures, whatever the address', async () => {
      const device = deviceOf(await login('Owner', TEAM.owner.password))!;
      for (let i = 0; i < POLICY.pair.limit; i++)
        expect((await withDevice(device, 'Owner', 'guess', `192.0.2.${10 + i}`)).status).toBe(401);
      const refused = await withDevice(device, 'Owner', TEAM.owner.password, '192.0.2.99');
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe('Too many failed sign-ins for this username from this browser. Try again in 15 minutes.');
      expect((await login('Owner', TEAM.owner.password, OWNER_HOME)).status).toBe(200); // its known address still signs in
    });
  });
});
