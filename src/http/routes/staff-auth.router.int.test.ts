import request from 'supertest';
import { DEFAULT_LOGIN_THROTTLE, type LoginThrottlePolicy } from '../../modules/staff/login-throttle';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, seedTeam, TEAM } from '../../test-support/staff-test-kit';

const OWNER_HOME = '203.0.113.10';
const ATTACKER = '192.0.2.66';

/** Small limits so the tests stay short; the shape is the production policy's. */
const POLICY: LoginThrottlePolicy = {
  pair: { limit: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000 },
  client: { limit: 12, windowMs: 15 * 60_000 },
  account: { limit: 10, windowMs: 15 * 60_000 },
  knownClientMs: DEFAULT_LOGIN_THROTTLE.knownClientMs,
  slowDownMs: 200,
};

describeEngines('staff login', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase(), { loginThrottle: POLICY });
    await seedTeam(getDatabase().db);
  });

  const login = (username: string, password: string, ip = OWNER_HOME) =>
    request(kit.app).post('/api/staff/login').set('X-Forwarded-For', ip).send({ username, password });
  const auditActions = async () => (await getDatabase().query<{ action: string }>('select action from audit_log order by id')).rows.map((r) => r.action);

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
      const rows = (await getDatabase().query<{ action: string; target_id: string | null; details: Record<string, unknown> }>('select action, target_id, details from audit_log')).rows;
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

    it('slows, but never blocks, a staff member behind an address spraying many usernames', async () => {
      for (let i = 0; i < 12; i++) await login(`user${i}`, 'guess', ATTACKER);
      const started = Date.now();
      expect((await login('Mod', TEAM.mod.password, ATTACKER)).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(POLICY.slowDownMs);
      expect(await auditActions()).toContain('staff.login_throttled');
      expect((await login('Mod', TEAM.mod.password, OWNER_HOME)).status).toBe(200);
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
});
