import request from 'supertest';
import { buildMember } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createStaffTestApp, loginCookie, seedTeam, TEAM } from '../../test-support/staff-test-kit';

const NETWORK = 'c0ffee'.repeat(10) + 'abcd';

describeEngines('admin shared-network routes', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  let mod: string;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    kit = createStaffTestApp(getDatabase());
    await seedTeam(getDatabase().db);
    mod = await loginCookie(kit.app, 'Mod', TEAM.mod.password);
  });

  const get = (path: string) => request(kit.app).get(path).set('Cookie', mod);
  const post = (path: string, body: object = {}) => request(kit.app).post(path).set('Cookie', mod).send(body);
  const del = (path: string) => request(kit.app).delete(path).set('Cookie', mod);
  const rows = async (sql: string, params: unknown[] = []) => (await getDatabase().query<Record<string, unknown>>(sql, params)).rows;

  it('marks a member’s network, lists it with a 12-character prefix and a member count, shows it on the detail page, and unmarks it', async () => {
    const { db } = getDatabase();
    await buildMember(db, {
      discordId: '400000000000000001',
      username: 'sibling1',
      networkHash: NETWORK,
      verifiedAt: new Date('2026-01-01'),
    });
    await buildMember(db, {
      discordId: '400000000000000002',
      username: 'sibling2',
      networkHash: NETWORK,
      verifiedAt: new Date('2026-01-02'),
    });
    await buildMember(db, { discordId: '400000000000000003', username: 'elsewhere', networkHash: 'f'.repeat(64) });

    const marked = await post('/api/admin/users/400000000000000001/shared-network', { label: '  Smith household  ' });
    expect(marked.status).toBe(200);
    expect(marked.body).toEqual({ success: true, sharedNetwork: { marked: true, label: 'Smith household' }, members: 2 });

    const list = await get('/api/admin/shared-networks');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        networkHash: NETWORK.slice(0, 12),
        label: 'Smith household',
        markedBy: 'Mod',
        createdAt: expect.any(String),
        members: 2,
        member: { discordId: '400000000000000002', username: 'sibling2' },
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(NETWORK);

    expect((await get('/api/admin/users/400000000000000002')).body.sharedNetwork).toEqual({ marked: true, label: 'Smith household' });
    expect((await get('/api/admin/users/400000000000000003')).body.sharedNetwork).toEqual({ marked: false, label: null });

    const audit = await rows(
      "select actor_type, actor_id, actor_name, target_id, details from audit_log where action like 'shared_network.%'",
    );
    expect(audit).toEqual([
      { actor_type: 'staff', actor_id: '3', actor_name: 'Mod', target_id: '400000000000000001', details: { labelled: true, members: 2 } },
    ]);
    expect(await rows("select payload->>'text' as text from discord_outbox where kind = 'log_message'")).toEqual([
      {
        text: '🏠 Staff member Mod marked the network of <@400000000000000001> as shared ("Smith household"): IP and network matches there no longer count (2 member records on it)',
      },
    ]);

    // unmarked through any member on the network
    const unmarked = await del('/api/admin/users/400000000000000002/shared-network');
    expect(unmarked.status).toBe(200);
    expect(unmarked.body).toEqual({ success: true, sharedNetwork: { marked: false, label: null }, members: 2 });
    expect((await get('/api/admin/shared-networks')).body).toEqual([]);
  });

  it('answers 404 without a record, 409 without a network, when already marked and when not marked; writes nothing', async () => {
    const { db } = getDatabase();
    await buildMember(db, { discordId: '400000000000000010', status: 'limited_access', networkHash: null });
    await buildMember(db, { discordId: '400000000000000011', networkHash: NETWORK });

    const missing = await post('/api/admin/users/400000000000000099/shared-network');
    expect(missing.status).toBe(404);
    const noNetwork = await post('/api/admin/users/400000000000000010/shared-network');
    expect(noNetwork.status).toBe(409);
    expect(noNetwork.body.error).toBe('This member has no network on record (Limited Access records keep none)');
    expect((await del('/api/admin/users/400000000000000010/shared-network')).status).toBe(409);
    const notMarked = await del('/api/admin/users/400000000000000011/shared-network');
    expect(notMarked.status).toBe(409);
    expect(notMarked.body.error).toBe("This member's network is not marked as shared");
    expect(await rows("select 1 from audit_log where action like 'shared_network.%'")).toHaveLength(0);

    expect((await post('/api/admin/users/400000000000000011/shared-network')).status).toBe(200);
    const twice = await post('/api/admin/users/400000000000000011/shared-network', { label: 'other' });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toBe("This member's network is already marked as shared");
    expect(await rows('select label from shared_networks')).toEqual([{ label: null }]);
  });

  it('validates the label and the Discord ID', async () => {
    await buildMember(getDatabase().db, { discordId: '400000000000000020', networkHash: NETWORK });
    const long = await post('/api/admin/users/400000000000000020/shared-network', { label: 'x'.repeat(101) });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ error: 'Label must be at most 100 characters', field: 'label' });
    expect((await post('/api/admin/users/400000000000000020/shared-network', { label: 5 })).status).toBe(400);
    expect((await post('/api/admin/users/not-an-id/shared-network')).status).toBe(400);
    expect((await del('/api/admin/users/not-an-id/shared-network')).status).toBe(400);
    expect(await rows('select 1 from shared_networks')).toHaveLength(0);
  });
});
