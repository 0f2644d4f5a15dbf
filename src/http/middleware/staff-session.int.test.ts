import express from 'express';
import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { cookieOf, createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';
import { STAFF_ABSOLUTE_TIMEOUT_MS, STAFF_IDLE_TIMEOUT_MS } from './staff-session';

const HOUR = 60 * 60 * 1000;

/** A visitor route that keeps its own key in the same cookie. */
const visitorProbe = express.Router();
visitorProbe.post('/probe/consent', (req, res) => {
  req.session!.consent = { given: true };
  res.json({ ok: true });
});
visitorProbe.get('/probe/consent', (req, res) => {
  res.json({ consent: req.session?.consent ?? null });
});

describeEngines('staff sessions', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase(), { extraApi: [visitorProbe] });
    await seedTeam(getDatabase().db);
  });

  const session = (cookie: string) => request(kit.app).get('/api/admin/session').set('Cookie', cookie);
  const asAgent = async (who: keyof typeof TEAM) => {
    const agent = request.agent(kit.app);
    await agent.post('/api/staff/login').send({ username: TEAM[who].username, password: TEAM[who].password }).expect(200);
    return agent;
  };

  it('answers 401 without a session, and with a forged or tampered cookie', async () => {
    expect((await request(kit.app).get('/api/admin/session')).status).toBe(401);
    const cookie = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
    // claims to be the owner, but keeps the mod's signature
    const ownerClaim = Buffer.from(JSON.stringify({ staff: { staffId: 1, epoch: 0, iat: Date.now(), seen: Date.now() } })).toString(
      'base64',
    );
    const forged = cookie.replace(/gk_session=[^;]+/, `gk_session=${ownerClaim}`);
    expect((await session(forged)).status).toBe(401);
    expect((await session(cookie)).status).toBe(200);
  });

  it('logout ends this session and every copy of it', async () => {
    const first = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
    const second = await loginCookie(kit.app, 'Mod', TEAM.mod.password, '203.0.113.99');
    const out = await request(kit.app).post('/api/staff/logout').set('Cookie', first);
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });
    expect((await session(first)).status).toBe(401); // a copy of the cookie kept by an attacker
    expect((await session(second)).status).toBe(401);
    const actions = (await getDatabase().query<{ action: string }>('select action from audit_log order by id')).rows.map((r) => r.action);
    expect(actions).toEqual(['staff.login', 'staff.login', 'staff.logout']);
  });

  it('logout without a session still succeeds', async () => {
    expect((await request(kit.app).post('/api/staff/logout')).status).toBe(200);
  });

  it('leaves visitor keys in the cookie alone', async () => {
    const agent = request.agent(kit.app);
    await agent.post('/api/probe/consent').expect(200);
    await agent.post('/api/staff/login').send({ username: 'Mod', password: TEAM.mod.password }).expect(200);
    await agent.post('/api/staff/logout').expect(200);
    expect((await agent.get('/api/probe/consent')).body).toEqual({ consent: { given: true } });
    expect((await agent.get('/api/admin/session')).status).toBe(401);
  });

  it('a password change ends the account’s sessions', async () => {
    const modCookie = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
    const admin = await asAgent('admin');
    await admin.patch('/api/admin/staff/3/password').send({ newPassword: 'brand-new-password' }).expect(200);
    expect((await session(modCookie)).status).toBe(401);
    await loginCookie(kit.app, 'Mod', 'brand-new-password');
    const old = await request(kit.app).post('/api/staff/login').send({ username: 'Mod', password: TEAM.mod.password });
    expect(old.status).toBe(401);
  });

  it('changing one’s own password keeps the current session and ends the others', async () => {
    const elsewhere = await loginCookie(kit.app, 'Admin', TEAM.admin.password, '203.0.113.5');
    const admin = await asAgent('admin');
    await admin.patch('/api/admin/staff/2/password').send({ newPassword: 'admin-new-password' }).expect(200);
    expect((await admin.get('/api/admin/session')).status).toBe(200);
    expect((await session(elsewhere)).status).toBe(401);
  });

  it('demotion ends the sessions; promotion takes effect at once', async () => {
    const adminCookie = await loginCookie(kit.app, 'Admin', TEAM.admin.password);
    const modCookie = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
    const owner = await asAgent('owner');
    await owner.patch('/api/admin/staff/2/super-admin').send({ isSuperAdmin: false }).expect(200);
    expect((await session(adminCookie)).status).toBe(401);
    const again = await loginCookie(kit.app, 'Admin', TEAM.admin.password);
    expect((await request(kit.app).get('/api/admin/staff').set('Cookie', again)).status).toBe(403);

    expect((await request(kit.app).get('/api/admin/staff').set('Cookie', modCookie)).status).toBe(403);
    await owner.patch('/api/admin/staff/3/super-admin').send({ isSuperAdmin: true }).expect(200);
    expect((await request(kit.app).get('/api/admin/staff').set('Cookie', modCookie)).status).toBe(200);
  });

  it('deletion ends the sessions', async () => {
    const modCookie = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
    const owner = await asAgent('owner');
    await owner.delete('/api/admin/staff/3').expect(200);
    expect((await session(modCookie)).status).toBe(401);
    expect((await request(kit.app).post('/api/staff/login').send({ username: 'Mod', password: TEAM.mod.password })).status).toBe(401);
  });

  it('expires after 12 hours idle', async () => {
    const agent = await asAgent('mod');
    kit.clock.advance(STAFF_IDLE_TIMEOUT_MS - HOUR);
    expect((await agent.get('/api/admin/session')).status).toBe(200); // activity moves the idle deadline
    kit.clock.advance(STAFF_IDLE_TIMEOUT_MS - HOUR);
    expect((await agent.get('/api/admin/session')).status).toBe(200);
    kit.clock.advance(STAFF_IDLE_TIMEOUT_MS + 1000);
    const expired = await agent.get('/api/admin/session');
    expect(expired.status).toBe(401);
    kit.clock.advance(-STAFF_IDLE_TIMEOUT_MS * 2); // a cleared session stays cleared
    expect((await agent.get('/api/admin/session')).status).toBe(401);
  });

  it('expires 7 days after sign-in however active', async () => {
    const agent = await asAgent('mod');
    for (let elapsed = 0; elapsed + 10 * HOUR < STAFF_ABSOLUTE_TIMEOUT_MS; elapsed += 10 * HOUR) {
      kit.clock.advance(10 * HOUR);
      expect((await agent.get('/api/admin/session')).status).toBe(200);
    }
    kit.clock.advance(10 * HOUR);
    expect((await agent.get('/api/admin/session')).status).toBe(401);
  });

  it('does not re-send the cookie on every request', async () => {
    const cookie = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
    const res = await session(cookie);
    expect(cookieOf(res)).toBe('');
  });
});
