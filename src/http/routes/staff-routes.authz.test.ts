import request from 'supertest';
import { buildAttempt, buildMember } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { markSharedNetwork } from '../../modules/alts';
import type { StaffRoute } from './staff-route-table';
import { createStaffTestApp, loginCookie, seedTeam, TEAM, type TeamRole } from './staff-test-kit';

/**
 * The authorization matrix: every route of the staff route table × anonymous / staff /
 * super admin / owner, and the owner-protection column for routes that act on a staff
 * account. Routes come from the exported table, so a new route without an entry below
 * fails the test instead of going unchecked.
 */

const MEMBER = '300000000000000001';
const OTHER_MEMBER = '300000000000000002';
const DISCORD_USER = '300000000000000099';
// seeded in TEAM order after a reset: owner 1, admin 2, mod 3, other 4
const OWNER_ID = 1;
const OTHER_ID = 4;

interface Example {
  path: string;
  body?: Record<string, unknown>;
  /** status when the caller is allowed */
  ok: number;
}

const EXAMPLES: Record<string, Example> = {
  'GET /admin/session': { path: '/api/admin/session', ok: 200 },
  'GET /admin/users': { path: '/api/admin/users?filter=all&limit=10', ok: 200 },
  'GET /admin/users/:discordId': { path: `/api/admin/users/${MEMBER}`, ok: 200 },
  'POST /privacy/delete': { path: '/api/privacy/delete', body: { discordId: MEMBER }, ok: 200 },
  'DELETE /admin/users/:discordId': { path: `/api/admin/users/${MEMBER}`, ok: 200 },
  'POST /admin/users/:discordId/notes': { path: `/api/admin/users/${MEMBER}/notes`, body: { note: 'Checked by hand' }, ok: 201 },
  'PATCH /admin/users/:discordId/alt-status': { path: `/api/admin/users/${MEMBER}/alt-status`, body: { manualAltStatus: 'suspected_alt' }, ok: 200 },
  'POST /admin/users/:discordId/manual-verify': { path: `/api/admin/users/${MEMBER}/manual-verify`, ok: 200 },
  'POST /admin/manual-entry': {
    path: '/api/admin/manual-entry',
    body: { discordId: '300000000000000003', username: 'typed', avatarUrl: null, status: 'verified', rulesConfirmed: 'true', manualAltStatus: null },
    ok: 201,
  },
  'POST /admin/create-staff': { path: '/api/admin/create-staff', body: { username: 'newbie', password: 'newbie-password' }, ok: 201 },
  'GET /admin/staff': { path: '/api/admin/staff', ok: 200 },
  'POST /admin/staff': { path: '/api/admin/staff', body: { username: 'newbie', password: 'newbie-password' }, ok: 201 },
  'PATCH /admin/staff/:id/password': { path: `/api/admin/staff/${OTHER_ID}/password`, body: { newPassword: 'changed-password' }, ok: 200 },
  'PATCH /admin/staff/:id/super-admin': { path: `/api/admin/staff/${OTHER_ID}/super-admin`, body: { isSuperAdmin: true }, ok: 200 },
  'DELETE /admin/staff/:id': { path: `/api/admin/staff/${OTHER_ID}`, ok: 200 },
  'GET /admin/audit': { path: '/api/admin/audit?limit=5', ok: 200 },
  'GET /discord/user/:discordId': { path: `/api/discord/user/${DISCORD_USER}`, ok: 200 },
  'GET /admin/shared-networks': { path: '/api/admin/shared-networks', ok: 200 },
  'GET /admin/outbox': { path: '/api/admin/outbox?status=failed', ok: 200 },
  // action 1 is a failed role change (see seed)
  'POST /admin/outbox/:id/retry': { path: '/api/admin/outbox/1/retry', ok: 200 },
  // MEMBER's network is not marked yet; OTHER_MEMBER's is (see seed)
  'POST /admin/users/:discordId/shared-network': { path: `/api/admin/users/${MEMBER}/shared-network`, body: { label: 'school' }, ok: 200 },
  'DELETE /admin/users/:discordId/shared-network': { path: `/api/admin/users/${OTHER_MEMBER}/shared-network`, ok: 200 },
};

/** The same routes aimed at the owner's account: who may, who may not. */
const ON_OWNER: Record<string, { body?: Record<string, unknown>; admin: number; owner: number }> = {
  'PATCH /admin/staff/:id/password': { body: { newPassword: 'changed-password' }, admin: 403, owner: 200 },
  'PATCH /admin/staff/:id/super-admin': { body: { isSuperAdmin: false }, admin: 403, owner: 403 },
  'DELETE /admin/staff/:id': { admin: 403, owner: 403 },
};

/** The only routes anyone may call without a session. */
const PUBLIC_ROUTES = ['GET /setup-admin', 'POST /setup-admin', 'POST /staff/login', 'POST /staff/logout'];

const keyOf = (r: Pick<StaffRoute, 'method' | 'path'>) => `${r.method.toUpperCase()} ${r.path}`;

type Caller = 'anonymous' | Exclude<TeamRole, 'other'>;
const CALLERS: Caller[] = ['anonymous', 'mod', 'admin', 'owner'];

function expected(route: StaffRoute, caller: Caller, example: Example): number {
  if (caller === 'anonymous') return 401;
  if (route.access === 'super_admin' && caller === 'mod') return 403;
  return example.ok;
}

describeEngines('staff routes authorization matrix', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  const cookies: Partial<Record<Caller, string>> = {};

  async function seed() {
    const { db } = getDatabase();
    await resetDatabase(getDatabase());
    await seedTeam(db);
    const member = await buildMember(db, { discordId: MEMBER, username: 'target', networkHash: 'a'.repeat(64) });
    await buildAttempt(db, member.id, { fingerprintHash: 'f'.repeat(32) });
    await buildMember(db, { discordId: OTHER_MEMBER, username: 'bystander', networkHash: 'b'.repeat(64) });
    await markSharedNetwork(db, { networkHash: 'b'.repeat(64), label: 'family', markedBy: 'Mod', now: new Date() });
    await getDatabase().query(`insert into discord_outbox (kind, discord_id, payload, status, attempts, last_error) values ('add_role', $1, '{"role":"verified"}', 'failed', 12, '404 10007: Unknown Member')`, [MEMBER]);
  }

  beforeAll(async () => {
    kit = createStaffTestApp(getDatabase());
    kit.discordUsers.users.set(DISCORD_USER, { username: 'fetched', avatarUrl: null });
    await seed();
    for (const caller of CALLERS) {
      if (caller !== 'anonymous') cookies[caller] = await loginCookie(kit.app, TEAM[caller].username, TEAM[caller].password);
    }
  });

  function send(method: string, path: string, caller: Caller, body?: Record<string, unknown>) {
    const verb = method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
    let req = request(kit.app)[verb](path);
    if (caller !== 'anonymous') req = req.set('Cookie', cookies[caller]!);
    return body ? req.send(body) : req;
  }

  it('has an example for every route of the table, and no stale ones', () => {
    const guarded = kit.routes.filter((r) => r.access !== 'public').map(keyOf).sort();
    expect(guarded).toEqual(Object.keys(EXAMPLES).sort());
  });

  it('has exactly the expected public routes', () => {
    expect(kit.routes.filter((r) => r.access === 'public').map(keyOf).sort()).toEqual([...PUBLIC_ROUTES].sort());
  });

  it('covers every route that names a staff account with the owner column', () => {
    const onStaff = kit.routes.filter((r) => r.path.startsWith('/admin/staff/:id')).map(keyOf).sort();
    expect(onStaff).toEqual(Object.keys(ON_OWNER).sort());
  });

  it('mounts exactly the table, each route behind the guards its access names', () => {
    const mounted = kit.routers.flatMap((router) =>
      router.stack
        .filter((layer) => layer.route)
        .map((layer) => {
          const route = layer.route!;
          // Express keeps the verbs on the route object; its types do not declare them
          const methods = Object.keys((route as unknown as { methods: Record<string, boolean> }).methods);
          return { key: `${methods[0]!.toUpperCase()} ${route.path}`, guards: route.stack.map((l) => l.name).filter((n) => n.startsWith('require')) };
        }),
    );
    const fromTable = kit.routes.map((r) => ({
      key: keyOf(r),
      guards: r.access === 'public' ? [] : r.access === 'staff' ? ['requireStaff'] : ['requireStaff', 'requireSuperAdmin'],
    }));
    expect(mounted).toEqual(fromTable);
  });

  describe.each(Object.keys(EXAMPLES))('%s', (key) => {
    it.each(CALLERS)('as %s', async (caller) => {
      const route = kit.routes.find((r) => keyOf(r) === key)!;
      const example = EXAMPLES[key]!;
      await seed();
      const res = await send(route.method, example.path, caller, example.body);
      expect({ caller, status: res.status }).toEqual({ caller, status: expected(route, caller, example) });
    });
  });

  describe.each(Object.keys(ON_OWNER))('%s on the owner account', (key) => {
    it.each(['mod', 'admin', 'owner'] as const)('as %s', async (caller) => {
      const [method] = key.split(' ');
      const rule = ON_OWNER[key]!;
      await seed();
      const path = EXAMPLES[key]!.path.replace(`/${OTHER_ID}`, `/${OWNER_ID}`);
      const res = await send(method!, path, caller, rule.body);
      const status = caller === 'mod' ? 403 : rule[caller];
      expect({ caller, status: res.status }).toEqual({ caller, status });
    });
  });
});
