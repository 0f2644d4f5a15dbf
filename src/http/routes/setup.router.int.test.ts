import request from 'supertest';
import { createMemorySetupCodeStore } from '../../modules/staff';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, loginCookie, TEST_SETUP_CODE } from '../../test-support/staff-test-kit';

describeEngines('POST /api/setup-admin', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let setupCode: ReturnType<typeof createMemorySetupCodeStore>;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    setupCode = createMemorySetupCodeStore(TEST_SETUP_CODE);
    kit = createStaffTestApp(getDatabase(), { setupCode });
  });

  const body = (overrides: Record<string, unknown> = {}) => ({
    setupCode: TEST_SETUP_CODE,
    username: 'Founder',
    password: 'founder-password',
    ...overrides,
  });
  const staffRows = async () =>
    (
      await getDatabase().query<{ username: string; is_owner: boolean; is_super_admin: boolean }>(
        'select username, is_owner, is_super_admin from staff',
      )
    ).rows;

  it('reports setup available while no staff account exists', async () => {
    expect((await request(kit.app).get('/api/setup-admin')).body).toEqual({ available: true });
  });

  it('creates the owner (super admin, protected), consumes the code and audits', async () => {
    const res = await request(kit.app).post('/api/setup-admin').send(body());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true, username: 'Founder' });
    expect(await staffRows()).toEqual([{ username: 'Founder', is_owner: true, is_super_admin: true }]);
    expect(setupCode.current()).toBeNull();
    expect((await request(kit.app).get('/api/setup-admin')).body).toEqual({ available: false });
    const audit = await getDatabase().query<{ action: string; details: unknown }>(
      "select action, details from audit_log where action = 'staff.setup'",
    );
    expect(audit.rows).toHaveLength(1);
    expect(JSON.stringify(audit.rows[0])).not.toContain('founder-password');
    // and the owner can sign in
    await loginCookie(kit.app, 'founder', 'founder-password');
  });

  it('accepts the code typed in lower case without dashes', async () => {
    const res = await request(kit.app)
      .post('/api/setup-admin')
      .send(body({ setupCode: TEST_SETUP_CODE.toLowerCase().replace(/-/g, ' ') }));
    expect(res.status).toBe(201);
  });

  it('refuses a wrong code with 403 and writes nothing', async () => {
    const res = await request(kit.app)
      .post('/api/setup-admin')
      .send(body({ setupCode: 'WRONG-WRONG-WRONG-WRONG' }));
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Invalid setup code');
    expect(await staffRows()).toEqual([]);
    expect(setupCode.current()).toBe(TEST_SETUP_CODE);
  });

  it('refuses when there is no code at all', async () => {
    setupCode.consume();
    const res = await request(kit.app).post('/api/setup-admin').send(body());
    expect(res.status).toBe(403);
  });

  it('answers 409 once any staff account exists, even with the right code', async () => {
    await request(kit.app).post('/api/setup-admin').send(body()).expect(201);
    const again = createStaffTestApp(getDatabase(), { setupCode: createMemorySetupCodeStore(TEST_SETUP_CODE) });
    const res = await request(again.app)
      .post('/api/setup-admin')
      .send(body({ username: 'Usurper' }));
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('Setup has already been completed');
  });

  it('lets exactly one of many concurrent setups create the owner', async () => {
    // each request gets its own store holding the same code, as if several processes raced
    const apps = Array.from(
      { length: 6 },
      () => createStaffTestApp(getDatabase(), { setupCode: createMemorySetupCodeStore(TEST_SETUP_CODE) }).app,
    );
    const results = await Promise.all(
      apps.map((app, i) =>
        request(app)
          .post('/api/setup-admin')
          .send(body({ username: `Racer${i}` })),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    const rows = await staffRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.is_owner).toBe(true);
  });

  it.each([
    [{ setupCode: '' }, 'Setup code is required', 'setupCode'],
    [{ username: '' }, 'Username is required', 'username'],
    [{ username: '   ' }, 'Username is required', 'username'],
    [{ username: undefined }, 'Username is required', 'username'],
    [{ password: '' }, 'Password is required', 'password'],
    [{ password: 'short' }, 'Password must be at least 8 characters', 'password'],
    [{ password: 'x'.repeat(73) }, 'Password must be at most 72 bytes', 'password'],
    [{ password: 'é'.repeat(37) }, 'Password must be at most 72 bytes', 'password'],
    [{ username: 'x'.repeat(33) }, 'Username must be at most 32 characters', 'username'],
  ])('validates %j', async (overrides, error, field) => {
    const res = await request(kit.app).post('/api/setup-admin').send(body(overrides));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error, field });
    expect(await staffRows()).toEqual([]);
  });
});
