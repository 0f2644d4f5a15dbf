import request from 'supertest';
import { buildMember, buildNote } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';

describeEngines('staff management routes', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let owner: string;
  let admin: string;
  let mod: string;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase());
    await seedTeam(getDatabase().db);
    owner = await loginCookie(kit.app, 'Owner', TEAM.owner.password);
    admin = await loginCookie(kit.app, 'Admin', TEAM.admin.password);
    mod = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
  });

  const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string, cookie: string, body?: object) => {
    const req = request(kit.app)[method](path).set('Cookie', cookie);
    return body ? req.send(body) : req;
  };
  const staffCount = async () => Number((await getDatabase().query<{ n: string }>('select count(*) as n from staff')).rows[0]!.n);
  const audit = async (action: string) =>
    (
      await getDatabase().query<{ actor_name: string; target_id: string; details: Record<string, unknown> }>(
        'select actor_name, target_id, details from audit_log where action = $1',
        [action],
      )
    ).rows;

  describe('POST /api/admin/create-staff (any staff)', () => {
    it('creates a regular account that can sign in, audited', async () => {
      const res = await call('post', '/api/admin/create-staff', mod, { username: 'Helper', password: 'helper-password' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        success: true,
        staff: { id: 5, username: 'Helper', isSuperAdmin: false, isOwner: false, discordId: null },
      });
      await loginCookie(kit.app, 'helper', 'helper-password');
      expect(await audit('staff.create')).toEqual([
        { actor_name: 'Mod', target_id: '5', details: { username: 'Helper', via: 'create_staff' } },
      ]);
    });

    it.each([
      ['no username', { password: 'long-enough' }, 'Please fill in all fields', 'username'],
      ['an empty username', { username: '', password: 'long-enough' }, 'Please fill in all fields', 'username'],
      ['no password', { username: 'Helper' }, 'Please fill in all fields', 'password'],
      ['an empty password', { username: 'Helper', password: '' }, 'Please fill in all fields', 'password'],
      ['a 7-character password', { username: 'Helper', password: '1234567' }, 'Password must be at least 8 characters', 'password'],
      ['a password over 72 bytes', { username: 'Helper', password: 'p'.repeat(73) }, 'Password must be at most 72 bytes', 'password'],
      [
        'a control character',
        { username: 'Hel\u0000per', password: 'long-enough' },
        'Username cannot contain control characters',
        'username',
      ],
    ])('refuses %s', async (_label, body, error, field) => {
      const res = await call('post', '/api/admin/create-staff', mod, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, field });
      expect(await staffCount()).toBe(4);
    });

    it('answers 409 for a username taken in any case', async () => {
      const res = await call('post', '/api/admin/create-staff', mod, { username: 'oWNER', password: 'long-enough' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: 'Username already exists', field: 'username' });
      expect(await staffCount()).toBe(4);
      expect(await audit('staff.create')).toEqual([]);
    });
  });

  describe('GET /api/admin/staff', () => {
    it('lists every account with its flags', async () => {
      const res = await call('get', '/api/admin/staff', admin);
      expect(res.body).toEqual([
        { id: 1, username: 'Owner', isSuperAdmin: true, isOwner: true, discordId: null },
        { id: 2, username: 'Admin', isSuperAdmin: true, isOwner: false, discordId: null },
        { id: 3, username: 'Mod', isSuperAdmin: false, isOwner: false, discordId: null },
        { id: 4, username: 'Other', isSuperAdmin: false, isOwner: false, discordId: null },
      ]);
    });
  });

  describe('POST /api/admin/staff (super admin)', () => {
    it('creates a regular account', async () => {
      const res = await call('post', '/api/admin/staff', admin, { username: 'Helper', password: 'helper-password' });
      expect(res.status).toBe(201);
      expect(res.body.staff).toMatchObject({ username: 'Helper', isSuperAdmin: false });
      expect((await audit('staff.create'))[0]!.details).toEqual({ username: 'Helper', via: 'staff_management' });
    });

    it.each([
      ['no username', { password: 'long-enough' }, 'Username and password are required.', 'username'],
      ['no password', { username: 'Helper' }, 'Username and password are required.', 'password'],
      [
        'a short password (the server enforces 8 everywhere)',
        { username: 'Helper', password: 'short' },
        'Password must be at least 8 characters',
        'password',
      ],
    ])('refuses %s', async (_label, body, error, field) => {
      const res = await call('post', '/api/admin/staff', admin, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, field });
    });

    it('answers 409 for a duplicate', async () => {
      expect((await call('post', '/api/admin/staff', admin, { username: 'mod', password: 'long-enough' })).status).toBe(409);
    });
  });

  describe('PATCH /api/admin/staff/:id/password', () => {
    it('lets a super admin change another account’s password, audited without it', async () => {
      await call('patch', '/api/admin/staff/4/password', admin, { newPassword: 'fresh-password' }).expect(200);
      await loginCookie(kit.app, 'Other', 'fresh-password');
      const rows = await audit('staff.password_change');
      expect(rows).toEqual([{ actor_name: 'Admin', target_id: '4', details: { username: 'Other' } }]);
      expect(JSON.stringify(rows)).not.toContain('fresh-password');
    });

    it('lets only the owner change the owner’s password', async () => {
      expect((await call('patch', '/api/admin/staff/1/password', admin, { newPassword: 'takeover-pass' })).status).toBe(403);
      await call('patch', '/api/admin/staff/1/password', owner, { newPassword: 'owner-new-pass' }).expect(200);
      await loginCookie(kit.app, 'Owner', 'owner-new-pass');
    });

    it.each([
      ['no password', {}, 'Password cannot be empty.'],
      ['an empty password', { newPassword: '' }, 'Password cannot be empty.'],
      ['a short password', { newPassword: 'abc' }, 'Password must be at least 8 characters'],
    ])('refuses %s', async (_label, body, error) => {
      const res = await call('patch', '/api/admin/staff/4/password', admin, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, field: 'newPassword' });
    });

    it('answers 404 for an unknown account and 400 for a malformed id', async () => {
      const missing = await call('patch', '/api/admin/staff/99/password', admin, { newPassword: 'long-enough' });
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('Staff account not found');
      const bad = await call('patch', '/api/admin/staff/abc/password', admin, { newPassword: 'long-enough' });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ error: 'Invalid staff id', field: 'id' });
    });
  });

  describe('PATCH /api/admin/staff/:id/super-admin', () => {
    it('promotes and demotes, audited', async () => {
      await call('patch', '/api/admin/staff/3/super-admin', admin, { isSuperAdmin: true }).expect(200);
      await call('patch', '/api/admin/staff/3/super-admin', admin, { isSuperAdmin: false }).expect(200);
      expect((await audit('staff.promote')).map((r) => r.target_id)).toEqual(['3']);
      expect((await audit('staff.demote')).map((r) => r.target_id)).toEqual(['3']);
    });

    it('never demotes the owner', async () => {
      const res = await call('patch', '/api/admin/staff/1/super-admin', admin, { isSuperAdmin: false });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('The owner account cannot be changed');
      expect((await call('get', '/api/admin/staff', owner)).body[0].isSuperAdmin).toBe(true);
    });

    it.each([[{}], [{ isSuperAdmin: 'true' }], [{ isSuperAdmin: 1 }]])('refuses %j', async (body) => {
      const res = await call('patch', '/api/admin/staff/3/super-admin', admin, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'isSuperAdmin must be true or false', field: 'isSuperAdmin' });
    });

    it('answers 404 for an unknown account', async () => {
      expect((await call('patch', '/api/admin/staff/99/super-admin', admin, { isSuperAdmin: true })).status).toBe(404);
    });
  });

  describe('DELETE /api/admin/staff/:id', () => {
    it('deletes an account; notes it wrote keep the author’s name', async () => {
      const member = await buildMember(getDatabase().db, { discordId: '200000000000000001' });
      await buildNote(getDatabase().db, member.id, 'noted', { authorStaffId: 4, authorName: 'Other' });
      await call('delete', '/api/admin/staff/4', admin).expect(200);
      expect(await staffCount()).toBe(3);
      const detail = await call('get', '/api/admin/users/200000000000000001', admin);
      expect(detail.body.adminNotes[0]).toMatchObject({ note: 'noted', authorName: 'Other' });
      expect(await audit('staff.delete')).toEqual([{ actor_name: 'Admin', target_id: '4', details: { username: 'Other' } }]);
    });

    it('never deletes the owner or oneself', async () => {
      const ownerRes = await call('delete', '/api/admin/staff/1', admin);
      expect(ownerRes.status).toBe(403);
      expect(ownerRes.body.error).toBe('The owner account cannot be deleted');
      const self = await call('delete', '/api/admin/staff/2', admin);
      expect(self.status).toBe(403);
      expect(self.body.error).toBe('You cannot delete your own account');
      expect(await staffCount()).toBe(4);
    });

    it('answers 404 for an unknown account', async () => {
      expect((await call('delete', '/api/admin/staff/99', admin)).status).toBe(404);
    });
  });
});
