import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';

describeEngines('GET /api/admin/audit', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let owner: string;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase());
    await seedTeam(getDatabase().db);
    owner = await loginCookie(kit.app, 'Owner', TEAM.owner.password); // audit row 1: staff.login
    await request(kit.app).post('/api/admin/create-staff').set('Cookie', owner).send({ username: 'Helper', password: 'helper-password' }).expect(201);
    await request(kit.app).patch('/api/admin/staff/3/super-admin').set('Cookie', owner).send({ isSuperAdmin: true }).expect(200);
  });

  const audit = (query = '') => request(kit.app).get(`/api/admin/audit${query}`).set('Cookie', owner);

  it('lists entries newest first with the chain verdict', async () => {
    const res = await audit();
    expect(res.status).toBe(200);
    expect(res.body.entries.map((e: { action: string }) => e.action)).toEqual(['staff.promote', 'staff.create', 'staff.login']);
    expect(res.body.entries[0]).toMatchObject({ actorType: 'staff', actorId: '1', actorName: 'Owner', targetType: 'staff', targetId: '3' });
    expect(res.body.chain).toEqual({ verified: true, checked: 3, brokenAt: null });
    expect(res.body.nextCursor).toBeNull();
  });

  it('filters by actor, action and target, and pages with a cursor', async () => {
    expect((await audit('?action=staff.create')).body.entries).toHaveLength(1);
    expect((await audit('?actor=owner')).body.entries).toHaveLength(3);
    expect((await audit('?target=3')).body.entries.map((e: { action: string }) => e.action)).toEqual(['staff.promote']);
    const first = await audit('?limit=2');
    expect(first.body.entries).toHaveLength(2);
    const next = await audit(`?limit=2&before=${first.body.nextCursor}`);
    expect(next.body.entries.map((e: { action: string }) => e.action)).toEqual(['staff.login']);
  });

  it('reports a broken chain', async () => {
    const database = getDatabase();
    await database.exec('alter table audit_log disable trigger audit_log_no_update');
    await database.query("update audit_log set action = 'forged' where id = 2");
    await database.exec('alter table audit_log enable trigger audit_log_no_update');
    expect((await audit()).body.chain).toMatchObject({ verified: false, brokenAt: 2 });
  });

  it.each([['?limit=0'], ['?limit=500'], ['?before=abc']])('refuses %s', async (query) => {
    expect((await audit(query)).status).toBe(400);
  });
});
