import request from 'supertest';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildMember } from '../../test-support/factories';
import { auditSentenceText, type AuditEntryView } from '../../shared/audit-sentence';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';

describeEngines('GET /api/admin/audit', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let owner: string;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase());
    await seedTeam(getDatabase().db);
    owner = await loginCookie(kit.app, 'Owner', TEAM.owner.password); // audit row 1: staff.login
    await request(kit.app)
      .post('/api/admin/create-staff')
      .set('Cookie', owner)
      .send({ username: 'Helper', password: 'helper-password' })
      .expect(201);
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

  it.each([
    ['?limit=0'],
    ['?limit=500'],
    ['?before=abc'],
    ['?action=member.nonsense'],
    ['?member=bob'],
    ['?member=1&member=2'],
    ['?from=yesterday'],
    ['?to=2026-02-30'],
    ['?from=2026-11-02&to=2026-11-01'],
  ])('refuses %s with a JSON error', async (query) => {
    const res = await audit(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
  });

  describe('entries a person can read', () => {
    const BOB = '200000000000000002';
    const GONE = '200000000000000009';
    const sentences = (body: { entries: AuditEntryView[] }) => body.entries.map(auditSentenceText);

    beforeEach(async () => {
      await buildMember(getDatabase().db, {
        discordId: BOB,
        username: 'bob',
        avatarUrl: 'https://cdn.example/bob.png',
        rulesConfirmed: false,
      });
      await request(kit.app).post(`/api/admin/users/${BOB}/manual-verify`).set('Cookie', owner).expect(200);
      await request(kit.app).post(`/api/admin/users/${BOB}/notes`).set('Cookie', owner).send({ note: 'known from the forum' }).expect(201);
      await buildMember(getDatabase().db, { discordId: GONE, username: 'gone' });
      await request(kit.app).delete(`/api/admin/users/${GONE}`).set('Cookie', owner).expect(200);
    });

    it('names the staff member and the member (with avatar) in each sentence, and a deleted member by ID', async () => {
      const res = await audit();
      expect(res.status).toBe(200);
      expect(sentences(res.body).slice(0, 3)).toEqual([
        `Owner deleted every record of member ${GONE} from the member's page`,
        'Owner added a note to @bob',
        'Owner verified @bob by hand',
      ]);
      const verify = res.body.entries.find((e: AuditEntryView) => e.action === 'member.manual_verify');
      expect(verify.members).toEqual({ [BOB]: { discordId: BOB, username: 'bob', avatarUrl: 'https://cdn.example/bob.png' } });
      expect(sentences(res.body)).toContain('Owner made Mod a super admin');
    });

    it('filters by member, action and day', async () => {
      expect(sentences((await audit(`?member=${BOB}`)).body)).toEqual(['Owner added a note to @bob', 'Owner verified @bob by hand']);
      expect(sentences((await audit(`?member=${BOB}&action=member.manual_verify`)).body)).toEqual(['Owner verified @bob by hand']);
      const today = kit.clock.now().toISOString().slice(0, 10);
      expect((await audit(`?from=${today}&to=${today}`)).body.entries.length).toBeGreaterThan(3);
      expect((await audit('?to=2000-01-01')).body.entries).toEqual([]);
      expect((await audit('?from=2999-01-01')).body.entries).toEqual([]);
    });
  });
});
