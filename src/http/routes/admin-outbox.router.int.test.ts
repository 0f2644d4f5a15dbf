import request from 'supertest';
import { listAudit } from '../../modules/audit';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';

describeEngines('admin outbox routes', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let cookie: string;

  beforeAll(async () => {
    kit = createStaffTestApp(getDatabase());
  });
  beforeEach(async () => {
    await resetDatabase(getDatabase());
    await seedTeam(getDatabase().db);
    cookie = await loginCookie(kit.app, TEAM.mod.username, TEAM.mod.password);
    const insert = `insert into discord_outbox (kind, discord_id, payload, status, attempts, last_error) values ($1, '300000000000000001', $2, $3, $4, $5)`;
    await getDatabase().query(insert, ['add_role', '{"role":"verified"}', 'failed', 12, '404 10007: Unknown Member']);
    await getDatabase().query(insert, [
      'add_guild_member',
      '{"roles":["unverified"]}',
      'failed',
      12,
      '403 50025: Invalid OAuth2 access token',
    ]);
    await getDatabase().query(insert, ['log_message', '{"text":"hello"}', 'pending', 0, null]);
  });

  it('lists failed actions with their errors and the queue depth, never a token', async () => {
    const res = await request(kit.app).get('/api/admin/outbox?status=failed').set('Cookie', cookie).expect(200);
    expect(res.body.depth).toEqual({ pending: 1, running: 0, failed: 2 });
    expect(res.body.entries.map((e: { kind: string; lastError: string }) => [e.kind, e.lastError])).toEqual([
      ['add_guild_member', '403 50025: Invalid OAuth2 access token'],
      ['add_role', '404 10007: Unknown Member'],
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/sealed|secret/i);
  });

  it('sends a failed action back to the queue, with an audit row', async () => {
    await request(kit.app).post('/api/admin/outbox/1/retry').set('Cookie', cookie).expect(200, { success: true });
    const { rows } = await getDatabase().query<{ status: string; attempts: number }>(
      'select status, attempts from discord_outbox where id = 1',
    );
    expect(rows[0]).toEqual({ status: 'pending', attempts: 0 });
    expect((await listAudit(getDatabase().db, { action: 'outbox.retry' })).entries).toHaveLength(1);
  });

  it('refuses what cannot be retried, and unknown or bad ids, changing nothing', async () => {
    const join = await request(kit.app).post('/api/admin/outbox/2/retry').set('Cookie', cookie);
    expect(join.status).toBe(409);
    expect(join.body.error).toMatch(/verify again/);
    expect((await request(kit.app).post('/api/admin/outbox/3/retry').set('Cookie', cookie)).status).toBe(409);
    expect((await request(kit.app).post('/api/admin/outbox/99/retry').set('Cookie', cookie)).status).toBe(404);
    expect((await request(kit.app).post('/api/admin/outbox/abc/retry').set('Cookie', cookie)).status).toBe(400);
    expect((await request(kit.app).get('/api/admin/outbox?status=weird').set('Cookie', cookie)).status).toBe(400);
    const { rows } = await getDatabase().query<{ status: string }>('select status from discord_outbox order by id');
    expect(rows.map((r) => r.status)).toEqual(['failed', 'failed', 'pending']);
    expect((await listAudit(getDatabase().db, { action: 'outbox.retry' })).entries).toHaveLength(0);
  });
});
