import request from 'supertest';
import { PASSWORD_TOO_SHORT } from '../../shared/staff-account';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { cookieOf, createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';

/** POST /api/admin/me/password: a staff member changes their own password (docs/behaviour.md#staff-roles-and-sessions). */
describeEngines('changing one’s own password', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase());
    await seedTeam(getDatabase().db);
  });

  const change = (cookie: string, body: unknown) =>
    request(kit.app)
      .post('/api/admin/me/password')
      .set('Cookie', cookie)
      .send(body as object);
  const auditRows = async () =>
    (
      await getDatabase().query<{ action: string; target_id: string | null; details: Record<string, unknown> }>(
        'select action, target_id, details from audit_log where action like $1 order by id',
        ['staff.password%'],
      )
    ).rows;
  const passwordHash = async (id: number) =>
    (await getDatabase().query<{ password_hash: string }>('select password_hash from staff where id = $1', [id])).rows[0]!.password_hash;

  it('changes the owner’s password, keeps this session, ends the others, and audits it', async () => {
    const here = await loginCookie(kit.app, TEAM.owner.username, TEAM.owner.password);
    const elsewhere = await loginCookie(kit.app, TEAM.owner.username, TEAM.owner.password, '203.0.113.20');
    const res = await change(here, { currentPassword: TEAM.owner.password, newPassword: 'brand-new-owner-pass' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });

    const renewed = cookieOf(res) || here;
    expect((await request(kit.app).get('/api/admin/session').set('Cookie', renewed)).status).toBe(200);
    expect((await request(kit.app).get('/api/admin/session').set('Cookie', elsewhere)).status).toBe(401);
    expect((await request(kit.app).post('/api/staff/login').send({ username: 'Owner', password: TEAM.owner.password })).status).toBe(401);
    expect((await request(kit.app).post('/api/staff/login').send({ username: 'Owner', password: 'brand-new-owner-pass' })).status).toBe(
      200,
    );

    const rows = await auditRows();
    expect(rows).toEqual([{ action: 'staff.password_change', target_id: '1', details: { username: 'Owner', own: true } }]);
    expect(JSON.stringify(rows)).not.toContain('brand-new');
  });

  it('lets a staff member without super admin change their own password', async () => {
    const cookie = await loginCookie(kit.app, TEAM.mod.username, TEAM.mod.password);
    expect((await change(cookie, { currentPassword: TEAM.mod.password, newPassword: 'mod-password-2' })).status).toBe(200);
  });

  it('answers 400 for a wrong current password, changes nothing and keeps every session', async () => {
    const cookie = await loginCookie(kit.app, TEAM.owner.username, TEAM.owner.password);
    const before = await passwordHash(1);
    const res = await change(cookie, { currentPassword: 'not-the-password', newPassword: 'brand-new-owner-pass' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Current password is incorrect' });
    expect(await passwordHash(1)).toBe(before);
    expect((await request(kit.app).get('/api/admin/session').set('Cookie', cookie)).status).toBe(200);
    expect(await auditRows()).toEqual([
      { action: 'staff.password_change_failed', target_id: '1', details: { reason: 'wrong_current_password' } },
    ]);
  });

  it.each([
    ['no body', undefined, 'Current password is required'],
    ['an empty object', {}, 'Current password is required'],
    ['an empty current password', { currentPassword: '', newPassword: 'brand-new-owner-pass' }, 'Current password is required'],
    [
      'a current password that is not a string',
      { currentPassword: 12345678, newPassword: 'brand-new-owner-pass' },
      'Current password is required',
    ],
    ['no new password', { currentPassword: TEAM.owner.password }, 'New password is required'],
    ['an empty new password', { currentPassword: TEAM.owner.password, newPassword: '' }, 'New password is required'],
    ['a new password that is not a string', { currentPassword: TEAM.owner.password, newPassword: ['x'] }, 'New password is required'],
    ['a short new password', { currentPassword: TEAM.owner.password, newPassword: 'short' }, PASSWORD_TOO_SHORT],
    [
      'a new password over 72 bytes',
      { currentPassword: TEAM.owner.password, newPassword: 'é'.repeat(40) },
      'Password must be at most 72 bytes',
    ],
    [
      'an overlong current password',
      { currentPassword: 'x'.repeat(2000), newPassword: 'brand-new-owner-pass' },
      'Current password is incorrect',
    ],
    [
      'the same password again',
      { currentPassword: TEAM.owner.password, newPassword: TEAM.owner.password },
      'The new password must differ from the current one',
    ],
  ])('answers 400 for %s and changes nothing', async (_case, body, message) => {
    const cookie = await loginCookie(kit.app, TEAM.owner.username, TEAM.owner.password);
    const before = await passwordHash(1);
    const res = await change(cookie, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: message });
    expect(await passwordHash(1)).toBe(before);
    expect((await auditRows()).filter((r) => r.action === 'staff.password_change')).toEqual([]);
  });

  it('answers 401 without a session', async () => {
    const res = await request(kit.app)
      .post('/api/admin/me/password')
      .send({ currentPassword: TEAM.owner.password, newPassword: 'brand-new-owner-pass' });
    expect(res.status).toBe(401);
    expect(res.body).toHaveProperty('error');
  });

  it('throttles wrong current passwords like sign-in: after 5, even the right one is refused until the block ends', async () => {
    const cookie = await loginCookie(kit.app, TEAM.owner.username, TEAM.owner.password);
    const guesses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => change(cookie, { currentPassword: `guess-number-${i}`, newPassword: 'brand-new-owner-pass' })),
    );
    expect(guesses.map((r) => r.status).sort()).toEqual([400, 400, 400, 400, 400, 429, 429, 429]);
    const refused = await change(cookie, { currentPassword: TEAM.owner.password, newPassword: 'brand-new-owner-pass' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'Too many wrong current passwords. Try again in 15 minutes.', code: 'rate_limited' });
    expect(refused.headers['retry-after']).toBe('900');
    expect((await auditRows()).filter((r) => r.action === 'staff.password_change_failed')).toHaveLength(5);
    kit.clock.advance(15 * 60_000);
    expect((await change(cookie, { currentPassword: TEAM.owner.password, newPassword: 'brand-new-owner-pass' })).status).toBe(200);
  });

  it('forgets earlier wrong current passwords once the right one is given', async () => {
    const cookie = await loginCookie(kit.app, TEAM.mod.username, TEAM.mod.password);
    for (let i = 0; i < 4; i++)
      expect((await change(cookie, { currentPassword: 'typo-typo', newPassword: 'mod-password-2' })).status).toBe(400);
    expect((await change(cookie, { currentPassword: TEAM.mod.password, newPassword: TEAM.mod.password })).status).toBe(400); // right, but the same: refused, and the count is gone
    for (let i = 0; i < 4; i++)
      expect((await change(cookie, { currentPassword: 'typo-typo', newPassword: 'mod-password-2' })).status).toBe(400);
    expect((await change(cookie, { currentPassword: TEAM.mod.password, newPassword: 'mod-password-2' })).status).toBe(200);
  });
});
