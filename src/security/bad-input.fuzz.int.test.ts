import fc from 'fast-check';
import request from 'supertest';
import { describeEngines, resetDatabase } from '../test-support/database';
import { buildAttempt, buildMember } from '../test-support/factories';
import { buildFingerprint } from '../test-support/gatekeeper';
import type { GatekeeperHandle } from '../server';
import { changedTables, cookieOf, fingerprintTables, listTables, mountedRoutes, ownerCookie, startSecurityGatekeeper, type MountedRoute } from '../test-support/security-kit';

/**
 * Bad-input fuzzing of every endpoint the product mounts (read from its routers, so a
 * new route is fuzzed without anyone adding it here): random and hostile path
 * parameters, query strings, bodies, content types and headers, sent over HTTP by an
 * anonymous caller, by the signed-in owner (so the staff handlers run past their guards)
 * and, for the visitor flow, by a visitor half-way through it. Every answer must be below
 * 500 and no table may change, except the few writes a route makes by design for any
 * caller (a one-time token used, a failed login counted).
 */

jest.setTimeout(180_000);

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const MEMBER_ID = '300000000000000001';

/** Writes a route makes by design, whatever the input. */
const ALLOWED_WRITES: Record<string, string[]> = {
  // issuing a consent token or an OAuth state writes nothing (they are signed); only a use is recorded.
  // The state is spent even when the code exchange then fails (single use)
  'GET /oauth/callback': ['one_time_tokens'],
  'POST /api/staff/login': ['login_throttle', 'audit_log', 'staff'],
  'POST /api/staff/logout': ['staff', 'audit_log'],
  // the first read of a day (an hour) that is over counts it into the statistics' stored counts
  'GET /api/admin/statistics': ['statistics_days', 'statistics_hours'],
};

const hostileText = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '9'.repeat(40),
  '1',
  "' or 1=1 --",
  '"; drop table members; --',
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '\u0000',
  '../../etc/passwd',
  '..%2f..%2f',
  '<script>alert(1)</script>',
  '${7*7}',
  '__proto__',
  'constructor',
  '\u202e\ufeff\ud800',
  'a'.repeat(5000),
  '😀'.repeat(50),
);
const text = fc.oneof(hostileText, fc.string({ maxLength: 60 }), fc.stringMatching(/^\d{1,25}$/));

const hostileJson = fc.constantFrom(
  '{"__proto__":{"isSuperAdmin":true,"isOwner":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '['.repeat(3000) + ']'.repeat(3000),
  '{"a":' + '{"a":'.repeat(2000) + '1' + '}'.repeat(2001),
  '{"consent":true,"token":{"$ne":null}}',
  '{"username":["a","b"],"password":{"length":8}}',
  '{"discordId":300000000000000001}',
  '{"limit":"1e9","filter":["all"]}',
  JSON.stringify({ x: 'y'.repeat(70_000) }),
  '{"unterminated": ',
  '\ufeff{"bom":true}',
  'null',
  '"just a string"',
  '12345',
);

const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.dictionary(text, fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 6 }).map((v) => JSON.stringify(v)),
  hostileJson,
  text,
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/xml',
  'garbage',
  undefined,
);

const query = fc.array(fc.tuple(fc.oneof(text, fc.constantFrom('filter', 'limit', 'cursor', 'search', 'state', 'code', 'error', 'before', 'actor', 'a[b]', 'a[]')), text), { maxLength: 5 });

const forwardedFor = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 })).map(([a, b, c]) => `198.${18 + a}.${b}.${c}`),
  fc.constantFrom('unknown', '1.2.3.4, 5.6.7.8', '999.1.1.1', '::1', '::ffff:127.0.0.1', '2001:db8::1', 'a'.repeat(300), ', , ,', '127.0.0.1'),
);

const origin = fc.constantFrom(undefined, 'SAME', 'null', 'https://evil.example', 'http://localhost');

interface FuzzInput {
  params: string[];
  rawParams: boolean;
  query: [string, string][];
  body: string | undefined;
  contentType: string | undefined;
  forwardedFor: string;
  origin: string | undefined;
  garbageCookie: boolean;
  /** a visitor's input aimed at its live consent token and OAuth state */
  aim: boolean;
}

const input: fc.Arbitrary<FuzzInput> = fc.record({
  params: fc.array(text, { minLength: 3, maxLength: 3 }),
  rawParams: fc.boolean(),
  query,
  body,
  contentType,
  forwardedFor,
  origin,
  garbageCookie: fc.boolean(),
  aim: fc.boolean(),
});

/** encodeURIComponent, with lone surrogates (which it refuses) replaced first. */
function encode(value: string): string {
  return encodeURIComponent(value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
}

function buildPath(route: MountedRoute, fuzz: FuzzInput): string {
  let i = 0;
  const path = route.path.replace(/:(\w+)/g, () => {
    const value = fuzz.params[i++ % fuzz.params.length] ?? '';
    // raw: malformed escapes, slashes and dots reach the router undecoded
    return fuzz.rawParams ? value.replace(/[\s?#]/g, '') || 'x' : encode(value) || 'x';
  });
  const qs = fuzz.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  return qs ? `${path}?${qs}` : path;
}

describeEngines('security: bad input on every endpoint writes nothing and never answers 5xx', (getDatabase) => {
  let handle: GatekeeperHandle;
  let owner = '';
  let tables: string[] = [];
  let routes: MountedRoute[] = [];
  let visitorSeq = 0;

  beforeAll(async () => {
    const database = getDatabase();
    await resetDatabase(database);
    handle = await startSecurityGatekeeper(database);
    owner = await ownerCookie(handle);
    const member = await buildMember(database.db, { discordId: MEMBER_ID, username: 'fuzz-target' });
    await buildAttempt(database.db, member.id, { fingerprintHash: 'f'.repeat(32), ipHash: 'a'.repeat(64) });
    tables = await listTables(database);
    routes = mountedRoutes(handle);
  });
  afterAll(async () => handle?.stop());

  /** A visitor who has consented and started the sign-in: the cookie, its unused consent token and its OAuth state. */
  async function midFlowVisitor() {
    const address = `198.19.200.${(++visitorSeq % 250) + 1}`;
    const agent = request.agent(handle.url);
    const { body: first } = await agent.get('/api/consent/token').set('X-Forwarded-For', address).expect(200);
    await agent.post('/api/consent').set('X-Forwarded-For', address).send({ consent: true, token: first.token, ...buildFingerprint() }).expect(200);
    const start = await agent.get('/oauth/start').set('X-Forwarded-For', address).expect(303);
    const state = new URL(start.headers.location as string).searchParams.get('state')!;
    const { body: second, headers } = await agent.get('/api/consent/token').set('X-Forwarded-For', address).expect(200);
    return { cookie: cookieOf({ headers }), token: second.token as string, state };
  }

  async function send(route: MountedRoute, fuzz: FuzzInput, cookie: string | undefined) {
    let req = request(handle.url)[route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](buildPath(route, fuzz));
    req = req.set('X-Forwarded-For', fuzz.forwardedFor);
    if (fuzz.origin) req = req.set('Origin', fuzz.origin === 'SAME' ? handle.url : fuzz.origin);
    const cookies = [cookie, fuzz.garbageCookie ? 'gk_session=eyJmb28iOiJiYXIifQ; gk_session.sig=forged' : undefined].filter(Boolean).join('; ');
    if (cookies) req = req.set('Cookie', cookies);
    if (fuzz.contentType) req = req.set('Content-Type', fuzz.contentType);
    if (fuzz.body !== undefined && route.method !== 'GET') req = req.send(fuzz.body);
    return req;
  }

  /** The tables as the last request left them: the next request's "before", unless a visitor was set up since. */
  let lastSeen: Awaited<ReturnType<typeof fingerprintTables>> | undefined;

  async function fuzzRoute(route: MountedRoute, caller: 'anonymous' | 'owner' | 'visitor', failures: string[]) {
    const key = `${route.method} ${route.path}`;
    const allowed = ALLOWED_WRITES[key] ?? [];
    await fc.assert(
      fc.asyncProperty(input, async (fuzz) => {
        let cookie: string | undefined;
        if (caller === 'owner') cookie = owner;
        if (caller === 'visitor') {
          const visitor = await midFlowVisitor();
          lastSeen = undefined; // setting the visitor up wrote its tokens
          cookie = visitor.cookie;
          // aim some inputs at the live token and state, so the handlers get past their first check
          if (fuzz.aim) fuzz = { ...fuzz, query: [...fuzz.query, ['state', visitor.state]], body: JSON.stringify({ consent: true, token: visitor.token, fingerprintData: {}, fingerprintHash: 'x' }) };
        }
        const before = lastSeen ?? (await fingerprintTables(getDatabase(), tables));
        const res = await send(route, fuzz, cookie);
        const after = await fingerprintTables(getDatabase(), tables);
        lastSeen = after;
        const changed = changedTables(before, after, allowed);
        if (res.status >= 500 || changed.length > 0) {
          failures.push(`${caller} ${key} → ${res.status}${changed.length ? `, wrote ${changed.join(', ')}` : ''} (${JSON.stringify(res.body).slice(0, 120)}) for ${JSON.stringify({ ...fuzz, body: fuzz.body?.slice(0, 80) })}`);
          return false;
        }
        return true;
      }),
      { numRuns: RUNS, endOnFailure: true },
    ).catch(() => undefined); // collected in `failures` with the request that caused it
    // the owner's session must survive for the next route (logout ends it by design)
    if (caller === 'owner' && key === 'POST /api/staff/logout') {
      owner = await ownerCookie(handle);
      lastSeen = undefined; // signing in again wrote its session and audit rows
    }
  }

  it('finds every route of the product to fuzz', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    for (const expected of ['POST /api/consent', 'GET /oauth/callback', 'POST /api/staff/login', 'GET /api/admin/users', 'DELETE /api/admin/staff/:id', 'POST /api/setup-admin', 'POST /api/rules/confirm']) {
      expect(keys).toContain(expected);
    }
    expect(keys.length).toBeGreaterThanOrEqual(20);
  });

  it('anonymous callers: any input on any route', async () => {
    const failures: string[] = [];
    for (const route of routes) await fuzzRoute(route, 'anonymous', failures);
    expect(failures).toEqual([]);
  });

  it('the signed-in owner: any input on any route', async () => {
    const failures: string[] = [];
    for (const route of routes) await fuzzRoute(route, 'owner', failures);
    expect(failures).toEqual([]);
  });

  it('a visitor half-way through verification: any input on the visitor and sign-in routes', async () => {
    const failures: string[] = [];
    for (const route of routes.filter((r) => !r.path.startsWith('/api/admin') && !r.path.startsWith('/api/staff') && !r.path.startsWith('/api/setup'))) {
      await fuzzRoute(route, 'visitor', failures);
    }
    expect(failures).toEqual([]);
  });

  it('unknown paths and methods answer 404/405-style errors, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), fc.oneof(text, fc.webPath()), async (method, tail) => {
        const path = `/api/${encode(tail)}`;
        const res = await request(handle.url)[method.toLowerCase() as 'get'](path).set('Cookie', owner);
        return res.status < 500;
      }),
      { numRuns: 40 },
    );
  });
});
