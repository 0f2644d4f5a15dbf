import request from 'supertest';
import type { GatekeeperHandle } from '../server';
import { describeEngines, resetDatabase } from '../test-support/database';
import { buildAttempt, buildMember } from '../test-support/factories';
import { buildFingerprint } from '../test-support/gatekeeper';
import {
  changedTables,
  cookieOf,
  fingerprintTables,
  listTables,
  mountedRoutes,
  ownerCookie,
  startSecurityGatekeeper,
  type MountedRoute,
} from '../test-support/security-kit';

/**
 * CSRF on the real product (app.int.test.ts checks the rule on a probe route): every
 * state-changing route the product mounts, sent with a signed-in owner's cookie and a
 * visitor's cookie the way another site could make a browser send it — a cross-origin
 * Origin, Sec-Fetch-Site cross-site, `Origin: null`, and the three content types an HTML
 * form can post without CORS — must be refused (403/415) and write nothing. The session
 * cookies must be HttpOnly and SameSite, and the API must not opt into CORS.
 */

jest.setTimeout(90_000);

const MEMBER_ID = '300000000000000001';
const EVIL = 'https://evil.example';

/** A body each route would accept from its own site, so only the cross-site signal differs. */
const VALID_BODIES: Record<string, unknown> = {
  'POST /api/admin/users/:discordId/notes': { note: 'csrf' },
  'PATCH /api/admin/users/:discordId/alt-status': { manualAltStatus: 'certain_alt' },
  'POST /api/admin/manual-entry': {
    discordId: '300000000000000009',
    username: 'csrf',
    avatarUrl: null,
    status: 'verified',
    rulesConfirmed: 'true',
    manualAltStatus: null,
  },
  'POST /api/admin/create-staff': { username: 'csrf-staff', password: 'csrf-password' },
  'POST /api/admin/staff': { username: 'csrf-staff2', password: 'csrf-password' },
  'PATCH /api/admin/staff/:id/password': { newPassword: 'csrf-password-2' },
  'PATCH /api/admin/staff/:id/super-admin': { isSuperAdmin: true },
  'POST /api/privacy/delete': { discordId: MEMBER_ID },
  'POST /api/staff/login': { username: 'sec-owner', password: 'sec-owner-password' },
  'POST /api/setup-admin': { setupCode: 'x', username: 'x', password: 'xxxxxxxx' },
  'POST /api/admin/users/:discordId/shared-network': { label: 'school' },
  'POST /api/appeal': { message: 'csrf' },
  'POST /api/admin/appeals/:id/reject': { reason: 'csrf' },
};

const ATTACKS: { name: string; headers: Record<string, string>; form?: 'urlencoded' | 'multipart' | 'text' }[] = [
  { name: 'cross-origin Origin, JSON', headers: { Origin: EVIL } },
  { name: 'Origin: null (sandboxed frame, redirect chain)', headers: { Origin: 'null' } },
  { name: 'Sec-Fetch-Site: cross-site, no Origin', headers: { 'Sec-Fetch-Site': 'cross-site' } },
  { name: 'Sec-Fetch-Site: same-site (a sibling subdomain)', headers: { 'Sec-Fetch-Site': 'same-site' } },
  { name: 'HTML form, urlencoded, no Origin (old browser)', headers: {}, form: 'urlencoded' },
  { name: 'HTML form, multipart, no Origin', headers: {}, form: 'multipart' },
  { name: 'HTML form, text/plain carrying JSON, no Origin', headers: {}, form: 'text' },
  { name: 'HTML form, urlencoded, cross-origin', headers: { Origin: EVIL }, form: 'urlencoded' },
];

describeEngines('security: cross-site requests change nothing', (getDatabase) => {
  let handle: GatekeeperHandle;
  let owner = '';
  let tables: string[] = [];
  let writeRoutes: MountedRoute[] = [];

  beforeAll(async () => {
    const database = getDatabase();
    await resetDatabase(database);
    handle = await startSecurityGatekeeper(database);
    owner = await ownerCookie(handle);
    const member = await buildMember(database.db, { discordId: MEMBER_ID, username: 'csrf-target' });
    await buildAttempt(database.db, member.id);
    // a second staff account the staff routes can aim at
    await request(handle.url)
      .post('/api/admin/create-staff')
      .set('Cookie', owner)
      .send({ username: 'csrf-victim', password: 'victim-password' })
      .expect(201);
    tables = await listTables(database);
    writeRoutes = mountedRoutes(handle).filter((r) => r.method !== 'GET');
  });
  afterAll(async () => handle?.stop());

  /** A verified visitor's session (rules not yet confirmed): the cookie a cross-site rules/confirm would ride on. */
  async function verifiedVisitorCookie(address: string): Promise<string> {
    const user = handle.discord.emulator!.createUser({ username: `csrf-visitor-${address}` });
    const agent = request.agent(handle.url);
    const { body } = await agent.get('/api/consent/token').set('X-Forwarded-For', address).expect(200);
    await agent
      .post('/api/consent')
      .set('X-Forwarded-For', address)
      .send({ consent: true, token: body.token, ...buildFingerprint() })
      .expect(200);
    const start = await agent.get('/oauth/start').set('X-Forwarded-For', address).expect(303);
    const authorize = new URL(start.headers.location as string);
    const { code, state } = handle.discord.emulator!.authorizeAs(user.id, authorize);
    const callback = await agent.get('/oauth/callback').query({ code, state }).set('X-Forwarded-For', address).expect(303);
    expect(callback.headers.location).toBe('/rules');
    return cookieOf(callback);
  }

  it('covers every state-changing route the product mounts (a new one is attacked without being listed here)', () => {
    const keys = writeRoutes.map((r) => `${r.method} ${r.path}`);
    expect(keys.length).toBeGreaterThanOrEqual(15);
    expect(keys).toEqual(
      expect.arrayContaining([
        'POST /api/staff/logout',
        'POST /api/rules/confirm',
        'DELETE /api/admin/staff/:id',
        ...Object.keys(VALID_BODIES),
      ]),
    );
  });

  let attackNo = 0;
  it.each(ATTACKS)('refuses $name on every state-changing route, writing nothing', async (attack) => {
    // its own client address per attack: the visitor rate limit must not answer for the CSRF rule
    const address = `198.18.9.${++attackNo}`;
    owner = await ownerCookie(handle);
    const visitor = await verifiedVisitorCookie(address);
    const { body: consentToken } = await request(handle.url).get('/api/consent/token').set('X-Forwarded-For', address);
    const problems: string[] = [];
    // the tables as the last request left them (a refused request changes nothing, so this is the next one's "before")
    let before = await fingerprintTables(getDatabase(), tables);
    for (const route of writeRoutes) {
      const key = `${route.method} ${route.path}`;
      const path = route.path.replace(':discordId', MEMBER_ID).replace(':id', '2');
      // a form carrying fields; the EMPTY form is its own test below
      const payload =
        key === 'POST /api/consent'
          ? { consent: true, token: consentToken.token, ...buildFingerprint() }
          : (VALID_BODIES[key] ?? { confirm: 'yes' });
      const agent = request(handle.url);
      let req = agent[route.method.toLowerCase() as 'post' | 'patch' | 'delete'](path)
        .set('Cookie', `${owner}; ${visitor}`)
        .set('X-Forwarded-For', address);
      for (const [name, value] of Object.entries(attack.headers)) req = req.set(name, value);
      if (attack.form === 'urlencoded')
        req = req
          .type('form')
          .send(new URLSearchParams(Object.entries(payload).map(([k, v]): [string, string] => [k, String(v)])).toString());
      else if (attack.form === 'multipart') {
        for (const [k, v] of Object.entries(payload)) req = req.field(k, String(v));
      } else if (attack.form === 'text') req = req.set('Content-Type', 'text/plain').send(JSON.stringify(payload));
      else req = req.send(payload);
      const res = await req;
      const after = await fingerprintTables(getDatabase(), tables);
      const changed = changedTables(before, after);
      before = after;
      if (![403, 415].includes(res.status) || changed.length > 0)
        problems.push(`${key} → ${res.status}${changed.length ? ` wrote ${changed.join(', ')}` : ''}`);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(problems).toEqual([]);
  });

  // An old browser sends neither Origin nor Sec-Fetch-Site, and an EMPTY <form method=post> has no
  // body: the form's own Content-Type is what gives it away, so any non-JSON type is refused.
  it.each(['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain'])(
    'refuses an EMPTY cross-site form POST (%s) from a browser that sends neither Origin nor Sec-Fetch-Site',
    async (contentType) => {
      owner = await ownerCookie(handle);
      const problems: string[] = [];
      let before = await fingerprintTables(getDatabase(), tables);
      for (const route of writeRoutes) {
        const path = route.path.replace(':discordId', MEMBER_ID).replace(':id', '2');
        const agent = request(handle.url);
        const res = await agent[route.method.toLowerCase() as 'post' | 'patch' | 'delete'](path)
          .set('Cookie', owner)
          .set('Content-Type', contentType);
        const after = await fingerprintTables(getDatabase(), tables);
        const changed = changedTables(before, after);
        before = after;
        if (res.status !== 415 || changed.length > 0)
          problems.push(`${route.method} ${route.path} → ${res.status}${changed.length ? ` wrote ${changed.join(', ')}` : ''}`);
      }
      expect(problems).toEqual([]);
    },
  );

  it('accepts the same requests from the site itself (the refusals above are about origin, not the payload)', async () => {
    owner = await ownerCookie(handle);
    const res = await request(handle.url)
      .post(`/api/admin/users/${MEMBER_ID}/notes`)
      .set('Cookie', owner)
      .set('Origin', handle.url)
      .send({ note: 'same-origin' });
    expect(res.status).toBe(201);
    const ok = await request(handle.url)
      .post(`/api/admin/users/${MEMBER_ID}/notes`)
      .set('Cookie', owner)
      .set('Sec-Fetch-Site', 'same-origin')
      .send({ note: 'fetch metadata' });
    expect(ok.status).toBe(201);
  });

  it('sets the session cookies HttpOnly and SameSite=Lax (the staff device cookie Strict), and never answers CORS preflights with a grant', async () => {
    const login = await request(handle.url)
      .post('/api/staff/login')
      .set('X-Forwarded-For', '192.0.2.44')
      .send({ username: 'sec-owner', password: 'sec-owner-password' });
    const visitor = await request(handle.url).get('/api/consent/token').set('X-Forwarded-For', '198.18.9.11');
    for (const res of [login, visitor]) {
      const cookies = res.headers['set-cookie'] as unknown as string[];
      expect(cookies.length).toBeGreaterThan(0);
      for (const cookie of cookies) {
        expect(cookie).toMatch(/;\s*httponly/i);
        // the device cookie is read by sign-in alone, which is never reached by a cross-site link: Strict
        expect(cookie).toMatch(cookie.startsWith('gk_staff_device=') ? /;\s*samesite=strict/i : /;\s*samesite=lax/i);
      }
    }
    const preflight = await request(handle.url)
      .options('/api/admin/staff')
      .set('Origin', EVIL)
      .set('Access-Control-Request-Method', 'POST');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
  });
});
