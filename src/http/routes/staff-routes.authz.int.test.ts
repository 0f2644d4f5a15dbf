import request from 'supertest';
import { buildAttempt, buildLink, buildMember } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { markSharedNetwork } from '../../modules/alts';
import { createStaffTestApp, loginCookie, seedTeam, TEAM, TEST_SETUP_CODE } from '../../test-support/staff-test-kit';

/**
 * The authorization matrix: every route the staff routers mount × anonymous / staff /
 * super admin / owner → the status each must get, written out by hand below. The
 * expectations do not come from the route table the routers are built from, so changing
 * a route's access fails here; a mounted route missing from MATRIX fails too, so a new
 * route cannot go unchecked. A second table does the same for the routes that act on a
 * staff account when the account is the owner's.
 */

const MEMBER = '300000000000000001';
const OTHER_MEMBER = '300000000000000002';
const LINKED_MEMBER = '300000000000000005';
const DISCORD_USER = '300000000000000099';
// seeded in TEAM order after a reset: owner 1, admin 2, mod 3, other 4
const OWNER_ID = 1;
const OTHER_ID = 4;

type Caller = 'anonymous' | 'staff' | 'superAdmin' | 'owner';
const CALLERS: Caller[] = ['anonymous', 'staff', 'superAdmin', 'owner'];
/** The seeded account each signed-in caller uses. */
const ACCOUNT = { staff: TEAM.mod, superAdmin: TEAM.admin, owner: TEAM.owner } as const;

type Expected = Record<Caller, number>;
interface Row extends Expected {
  path: string;
  /** a function when the body depends on who sends it (their own current password) */
  body?: Record<string, unknown> | ((caller: Caller) => Record<string, unknown>);
}

const MATRIX: Record<string, Row> = {
  // open to everyone
  'GET /setup-admin': { path: '/api/setup-admin', anonymous: 200, staff: 200, superAdmin: 200, owner: 200 },
  // staff accounts exist, so setup is closed whoever asks
  'POST /setup-admin': {
    path: '/api/setup-admin',
    body: { setupCode: TEST_SETUP_CODE, username: 'second-owner', password: 'second-owner-password' },
    anonymous: 409,
    staff: 409,
    superAdmin: 409,
    owner: 409,
  },
  'POST /staff/login': {
    path: '/api/staff/login',
    body: { username: TEAM.other.username, password: TEAM.other.password },
    anonymous: 200,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'POST /staff/logout': { path: '/api/staff/logout', anonymous: 200, staff: 200, superAdmin: 200, owner: 200 },
  // any signed-in staff member
  'GET /admin/session': { path: '/api/admin/session', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  // every account changes its own password, the owner's included
  'POST /admin/me/password': {
    path: '/api/admin/me/password',
    body: (caller) => ({
      currentPassword: caller === 'anonymous' ? 'whatever-password' : ACCOUNT[caller].password,
      newPassword: 'a-new-password',
    }),
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'GET /admin/users': { path: '/api/admin/users?filter=all&limit=10', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  'GET /admin/users/:discordId': { path: `/api/admin/users/${MEMBER}`, anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  'GET /admin/users/:discordId/appeals': {
    path: `/api/admin/users/${MEMBER}/appeals`,
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'POST /privacy/delete': {
    path: '/api/privacy/delete',
    body: { discordId: MEMBER },
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'POST /admin/users/:discordId/notes': {
    path: `/api/admin/users/${MEMBER}/notes`,
    body: { note: 'Checked by hand' },
    anonymous: 401,
    staff: 201,
    superAdmin: 201,
    owner: 201,
  },
  'PATCH /admin/users/:discordId/alt-status': {
    path: `/api/admin/users/${MEMBER}/alt-status`,
    body: { manualAltStatus: 'suspected_alt' },
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'POST /admin/users/:discordId/manual-verify': {
    path: `/api/admin/users/${MEMBER}/manual-verify`,
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  // link 1 (MEMBER and OTHER_MEMBER) is open, link 2 (MEMBER and LINKED_MEMBER) dismissed (see seed)
  'POST /admin/users/:discordId/alt-links/:linkId/dismiss': {
    path: `/api/admin/users/${MEMBER}/alt-links/1/dismiss`,
    body: { reason: 'siblings' },
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'POST /admin/users/:discordId/alt-links/:linkId/reopen': {
    path: `/api/admin/users/${MEMBER}/alt-links/2/reopen`,
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'POST /admin/manual-entry': {
    path: '/api/admin/manual-entry',
    body: {
      discordId: '300000000000000003',
      username: 'typed',
      avatarUrl: null,
      status: 'verified',
      rulesConfirmed: 'true',
      manualAltStatus: null,
    },
    anonymous: 401,
    staff: 201,
    superAdmin: 201,
    owner: 201,
  },
  'POST /admin/create-staff': {
    path: '/api/admin/create-staff',
    body: { username: 'newbie', password: 'newbie-password' },
    anonymous: 401,
    staff: 201,
    superAdmin: 201,
    owner: 201,
  },
  'GET /discord/user/:discordId': { path: `/api/discord/user/${DISCORD_USER}`, anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  'GET /admin/shared-networks': { path: '/api/admin/shared-networks', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  'GET /admin/outbox': { path: '/api/admin/outbox?status=failed', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  // action 1 is a failed role change (see seed)
  'POST /admin/outbox/:id/retry': { path: '/api/admin/outbox/1/retry', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  // MEMBER's network is not marked yet; OTHER_MEMBER's is (see seed)
  'POST /admin/users/:discordId/shared-network': {
    path: `/api/admin/users/${MEMBER}/shared-network`,
    body: { label: 'school' },
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'DELETE /admin/users/:discordId/shared-network': {
    path: `/api/admin/users/${OTHER_MEMBER}/shared-network`,
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'GET /admin/settings': { path: '/api/admin/settings', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  'GET /admin/lockdown': { path: '/api/admin/lockdown', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  'POST /admin/lockdown': {
    path: '/api/admin/lockdown',
    body: { on: true, reason: 'raid' },
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'POST /admin/lockdown/release': {
    path: '/api/admin/lockdown/release',
    body: {},
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  'GET /admin/statistics': { path: '/api/admin/statistics?days=7', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  'GET /admin/appeals': { path: '/api/admin/appeals', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  'GET /admin/appeals/count': { path: '/api/admin/appeals/count', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  // what approving would do: any staff may ask (an appeal that does not exist is a 404, whoever asks)
  'GET /admin/appeals/:id/preview': { path: '/api/admin/appeals/999/preview', anonymous: 401, staff: 404, superAdmin: 404, owner: 404 },
  // appeal 1 is MEMBER's open appeal (see seed)
  'POST /admin/appeals/:id/approve': { path: '/api/admin/appeals/1/approve', anonymous: 401, staff: 200, superAdmin: 200, owner: 200 },
  'POST /admin/appeals/:id/reject': {
    path: '/api/admin/appeals/1/reject',
    body: { reason: 'The link is right.' },
    anonymous: 401,
    staff: 200,
    superAdmin: 200,
    owner: 200,
  },
  // super admins (the owner is one) only
  'DELETE /admin/users/:discordId': { path: `/api/admin/users/${MEMBER}`, anonymous: 401, staff: 403, superAdmin: 200, owner: 200 },
  'GET /admin/staff': { path: '/api/admin/staff', anonymous: 401, staff: 403, superAdmin: 200, owner: 200 },
  'POST /admin/staff': {
    path: '/api/admin/staff',
    body: { username: 'newbie', password: 'newbie-password' },
    anonymous: 401,
    staff: 403,
    superAdmin: 201,
    owner: 201,
  },
  'PATCH /admin/staff/:id/password': {
    path: `/api/admin/staff/${OTHER_ID}/password`,
    body: { newPassword: 'changed-password' },
    anonymous: 401,
    staff: 403,
    superAdmin: 200,
    owner: 200,
  },
  'PATCH /admin/staff/:id/super-admin': {
    path: `/api/admin/staff/${OTHER_ID}/super-admin`,
    body: { isSuperAdmin: true },
    anonymous: 401,
    staff: 403,
    superAdmin: 200,
    owner: 200,
  },
  'DELETE /admin/staff/:id': { path: `/api/admin/staff/${OTHER_ID}`, anonymous: 401, staff: 403, superAdmin: 200, owner: 200 },
  'GET /admin/audit': { path: '/api/admin/audit?limit=5', anonymous: 401, staff: 403, superAdmin: 200, owner: 200 },
  'PUT /admin/settings': {
    path: '/api/admin/settings',
    body: { retentionDays: 45 },
    anonymous: 401,
    staff: 403,
    superAdmin: 200,
    owner: 200,
  },
};

/** The routes that name a staff account, aimed at the owner's: only the owner changes its own password, nobody demotes or deletes it. */
const ON_OWNER: Record<string, Row> = {
  'PATCH /admin/staff/:id/password': {
    path: `/api/admin/staff/${OWNER_ID}/password`,
    body: { newPassword: 'changed-password' },
    anonymous: 401,
    staff: 403,
    superAdmin: 403,
    owner: 200,
  },
  'PATCH /admin/staff/:id/super-admin': {
    path: `/api/admin/staff/${OWNER_ID}/super-admin`,
    body: { isSuperAdmin: false },
    anonymous: 401,
    staff: 403,
    superAdmin: 403,
    owner: 403,
  },
  'DELETE /admin/staff/:id': { path: `/api/admin/staff/${OWNER_ID}`, anonymous: 401, staff: 403, superAdmin: 403, owner: 403 },
};

/** The guards a route needs for the statuses its row expects: a session when anonymous callers get 401, super admin when staff get 403 and super admins do not. */
function guardsFor(row: Row): string[] {
  const guards: string[] = [];
  if (row.anonymous === 401) guards.push('requireStaff');
  if (row.staff === 403 && row.superAdmin !== 403) guards.push('requireSuperAdmin');
  return guards;
}

describeEngines('staff routes authorization matrix', (getDatabase) => {
  let kit: ReturnType<typeof createStaffTestApp>;
  const cookies: Partial<Record<Caller, string>> = {};

  /** Method + path (under /api) and guard names of every route the staff routers mount. */
  function mountedRoutes() {
    return kit.routers.flatMap((router) =>
      router.stack
        .filter((layer) => layer.route)
        .map((layer) => {
          const route = layer.route!;
          // Express keeps the verbs on the route object; its types do not declare them
          const methods = Object.keys((route as unknown as { methods: Record<string, boolean> }).methods);
          return {
            key: `${methods[0]!.toUpperCase()} ${route.path}`,
            guards: route.stack.map((l) => l.name).filter((n) => n.startsWith('require')),
          };
        }),
    );
  }

  async function seed() {
    const { db } = getDatabase();
    await resetDatabase(getDatabase());
    await seedTeam(db);
    const member = await buildMember(db, { discordId: MEMBER, username: 'target', networkHash: 'a'.repeat(64) });
    await buildAttempt(db, member.id, { fingerprintHash: 'f'.repeat(32) });
    const bystander = await buildMember(db, { discordId: OTHER_MEMBER, username: 'bystander', networkHash: 'b'.repeat(64) });
    await markSharedNetwork(db, { networkHash: 'b'.repeat(64), label: 'family', markedBy: 'Mod', now: new Date() });
    const linked = await buildMember(db, { discordId: LINKED_MEMBER, username: 'linked' });
    await buildLink(db, member.id, bystander.id);
    await buildLink(db, member.id, linked.id, { dismissedAt: new Date(), dismissedByName: 'Mod' });
    await getDatabase().query(
      `insert into discord_outbox (kind, discord_id, payload, status, attempts, last_error) values ('add_role', $1, '{"role":"verified"}', 'failed', 12, '404 10007: Unknown Member')`,
      [MEMBER],
    );
    await getDatabase().query(`insert into appeals (member_id, message, standing) values ($1, 'Please review', 'limited')`, [member.id]);
  }

  beforeAll(async () => {
    kit = createStaffTestApp(getDatabase());
    kit.discordUsers.users.set(DISCORD_USER, { username: 'fetched', avatarUrl: null });
    await seed();
    for (const caller of CALLERS) {
      if (caller !== 'anonymous') cookies[caller] = await loginCookie(kit.app, ACCOUNT[caller].username, ACCOUNT[caller].password);
    }
  });

  function send(method: string, path: string, caller: Caller, rowBody?: Row['body']) {
    const body = typeof rowBody === 'function' ? rowBody(caller) : rowBody;
    const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    let req = request(kit.app)[verb](path);
    if (caller !== 'anonymous') req = req.set('Cookie', cookies[caller]!);
    return body ? req.send(body) : req;
  }

  it('lists every mounted route in the hand-written matrix, and no route that is not mounted', () => {
    expect(
      mountedRoutes()
        .map((r) => r.key)
        .sort(),
    ).toEqual(Object.keys(MATRIX).sort());
  });

  it('covers every route that names a staff account with the owner table', () => {
    const onStaff = mountedRoutes()
      .filter((r) => r.key.includes(' /admin/staff/:id'))
      .map((r) => r.key)
      .sort();
    expect(onStaff).toEqual(Object.keys(ON_OWNER).sort());
  });

  it('mounts each route behind the guards its row expects', () => {
    const mounted = Object.fromEntries(mountedRoutes().map((r) => [r.key, r.guards]));
    const expected = Object.fromEntries(Object.entries(MATRIX).map(([key, row]) => [key, guardsFor(row)]));
    expect(mounted).toEqual(expected);
  });

  describe.each(Object.keys(MATRIX))('%s', (key) => {
    it.each(CALLERS)('as %s', async (caller) => {
      const row = MATRIX[key]!;
      await seed();
      const res = await send(key.split(' ')[0]!, row.path, caller, row.body);
      expect({ caller, status: res.status }).toEqual({ caller, status: row[caller] });
    });
  });

  describe.each(Object.keys(ON_OWNER))('%s on the owner account', (key) => {
    it.each(CALLERS)('as %s', async (caller) => {
      const row = ON_OWNER[key]!;
      await seed();
      const res = await send(key.split(' ')[0]!, row.path, caller, row.body);
      expect({ caller, status: res.status }).toEqual({ caller, status: row[caller] });
    });
  });
});
