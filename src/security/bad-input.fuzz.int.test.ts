import http from 'node:http';
import fc from 'fast-check';
import request from 'supertest';
import { describeEngines, resetDatabase } from '../test-support/database';
import { buildAttempt, buildMember } from '../test-support/factories';
import { buildFingerprint } from '../test-support/gatekeeper';
import type { GatekeeperHandle } from '../server';
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
  // The state is spent even when the code exchange then fails (single use), and the callback's outcome is
  // kept (a hash of state and code) so that the same callback again, on any process, lands on the same result
  'GET /oauth/callback': ['one_time_tokens', 'sign_in_callbacks'],
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

const query = fc.array(
  fc.tuple(
    fc.oneof(text, fc.constantFrom('filter', 'limit', 'cursor', 'search', 'state', 'code', 'error', 'before', 'actor', 'a[b]', 'a[]')),
    text,
  ),
  { maxLength: 5 },
);

const forwardedFor = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 }))
    .map(([a, b, c]) => `198.${18 + a}.${b}.${c}`),
  fc.constantFrom(
    'unknown',
    '1.2.3.4, 5.6.7.8',
    '999.1.1.1',
    '::1',
    '::ffff:127.0.0.1',
    '2001:db8::1',
    'a'.repeat(300),
    ', , ,',
    '127.0.0.1',
  ),
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

/**
 * The shapes of URL, header and body a generated fuzz input rarely reaches: segments longer
 * than a file name may be (256), than a page (4096) or than the whole request head Node
 * accepts (100k: its own 431), escapes that decode to nothing valid (overlong UTF-8, a lone
 * surrogate, a broken or truncated escape), encoded NUL and slash, mixtures of them; ten
 * thousand parameters; long and many headers.
 */
const ODD_SEGMENTS = [
  'a'.repeat(256),
  'a'.repeat(4096),
  'a'.repeat(100_000),
  '%C3%A9'.repeat(100),
  '%C0%AF',
  '%E0%80%AF',
  '%ED%A0%80',
  '%FF%FE',
  '%00',
  '%2F',
  '..%2F..%2Fetc%2Fpasswd',
  '%',
  '%zz',
  '%E0%A4%A',
  'a%2F%00%C0%AF%zz%E2%82%AC%',
  '%25%32%46',
];

/** What a response may never carry: a stack frame, a file path of the server, a raw system error. */
const STACK = /\bat [^\n]*:\d+:\d+|node:internal|\/src\/\S*\.ts\b|\bE(?:NAMETOOLONG|NOTDIR|NOENT|ACCES)\b/;

interface RawAnswer {
  status: number;
  body: string;
}

/** One request exactly as given (no client re-encoding the path); a connection the server closes mid-way answers status 0. */
function rawRequest(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path.slice(0, 60)}: no answer`)));
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' || error.code === 'EPIPE' ? resolve({ status: 0, body: '' }) : reject(error),
    );
    if (body !== undefined) req.write(body);
    req.end();
  });
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
    await agent
      .post('/api/consent')
      .set('X-Forwarded-For', address)
      .send({ consent: true, token: first.token, ...buildFingerprint() })
      .expect(200);
    const start = await agent.get('/oauth/start').set('X-Forwarded-For', address).expect(303);
    const state = new URL(start.headers.location as string).searchParams.get('state')!;
    const { body: second, headers } = await agent.get('/api/consent/token').set('X-Forwarded-For', address).expect(200);
    return { cookie: cookieOf({ headers }), token: second.token as string, state };
  }

  async function send(route: MountedRoute, fuzz: FuzzInput, cookie: string | undefined) {
    let req = request(handle.url)[route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](buildPath(route, fuzz));
    req = req.set('X-Forwarded-For', fuzz.forwardedFor);
    if (fuzz.origin) req = req.set('Origin', fuzz.origin === 'SAME' ? handle.url : fuzz.origin);
    const cookies = [cookie, fuzz.garbageCookie ? 'gk_session=eyJmb28iOiJiYXIifQ; gk_session.sig=forged' : undefined]
      .filter(Boolean)
      .join('; ');
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
    await fc
      .assert(
        fc.asyncProperty(input, async (fuzz) => {
          let cookie: string | undefined;
          if (caller === 'owner') cookie = owner;
          if (caller === 'visitor') {
            const visitor = await midFlowVisitor();
            lastSeen = undefined; // setting the visitor up wrote its tokens
            cookie = visitor.cookie;
            // aim some inputs at the live token and state, so the handlers get past their first check
            if (fuzz.aim)
              fuzz = {
                ...fuzz,
                query: [...fuzz.query, ['state', visitor.state]],
                body: JSON.stringify({ consent: true, token: visitor.token, fingerprintData: {}, fingerprintHash: 'x' }),
              };
          }
          const before = lastSeen ?? (await fingerprintTables(getDatabase(), tables));
          const res = await send(route, fuzz, cookie);
          const after = await fingerprintTables(getDatabase(), tables);
          lastSeen = after;
          const changed = changedTables(before, after, allowed);
          if (res.status >= 500 || changed.length > 0) {
            failures.push(
              `${caller} ${key} → ${res.status}${changed.length ? `, wrote ${changed.join(', ')}` : ''} (${JSON.stringify(res.body).slice(0, 120)}) for ${JSON.stringify({ ...fuzz, body: fuzz.body?.slice(0, 80) })}`,
            );
            return false;
          }
          return true;
        }),
        { numRuns: RUNS, endOnFailure: true },
      )
      .catch(() => undefined); // collected in `failures` with the request that caused it
    // the owner's session must survive for the next route (logout ends it by design)
    if (caller === 'owner' && key === 'POST /api/staff/logout') {
      owner = await ownerCookie(handle);
      lastSeen = undefined; // signing in again wrote its session and audit rows
    }
  }

  it('finds every route of the product to fuzz', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    for (const expected of [
      'POST /api/consent',
      'GET /oauth/callback',
      'POST /api/staff/login',
      'GET /api/admin/users',
      'DELETE /api/admin/staff/:id',
      'POST /api/setup-admin',
      'POST /api/rules/confirm',
    ]) {
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
    for (const route of routes.filter(
      (r) => !r.path.startsWith('/api/admin') && !r.path.startsWith('/api/staff') && !r.path.startsWith('/api/setup'),
    )) {
      await fuzzRoute(route, 'visitor', failures);
    }
    expect(failures).toEqual([]);
  });

  it('very long segments, odd encodings, ten thousand parameters and long headers: never a 5xx, never a stack trace', async () => {
    const failures: string[] = [];
    const check = async (label: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
      const res = await rawRequest(handle.url, method, path, headers, body);
      const headSize = path.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
      // 0: Node's own parser refused a head over its 16 kB limit and closed the connection (431)
      const refusedHead = res.status === 0 && headSize > 16 * 1024;
      if ((!refusedHead && (res.status < 400 ? res.status === 0 : res.status >= 500)) || STACK.test(res.body)) {
        failures.push(`${label}: ${method} ${path.slice(0, 80)} → ${res.status} ${res.body.slice(0, 160)}`);
      }
    };
    const paramRoutes = routes.filter((r) => r.path.includes(':'));
    const plainPaths = [
      '/X',
      '/oauth/X',
      '/api/X',
      '/assets/X',
      '/X/index.html',
      '/oauth/callback?code=X&state=X',
      '/api/admin/users?search=X',
    ];
    for (const segment of ODD_SEGMENTS) {
      for (const path of plainPaths) await check('segment', 'GET', path.replaceAll('X', segment), { cookie: owner, accept: 'text/html' });
      for (const route of paramRoutes)
        await check(
          'segment',
          route.method,
          route.path.replace(/:\w+/g, segment),
          { cookie: owner, 'content-type': 'application/json' },
          route.method === 'GET' ? undefined : '{}',
        );
    }
    // ten thousand parameters: in the query string (a head past Node's limit) and in a JSON body
    const manyParams = Array.from({ length: 10_000 }, (_, i) => `p${i}=${i}`).join('&');
    const manyKeys = JSON.stringify(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])));
    const shortParams = Array.from({ length: 1_500 }, (_, i) => `a=${i}`).join('&');
    for (const path of ['/', '/oauth/callback', '/oauth/start', '/api/consent/token', '/api/admin/users']) {
      await check('10k parameters', 'GET', `${path}?${manyParams}`, { cookie: owner });
      await check('1.5k repeated parameters', 'GET', `${path}?${shortParams}`, { cookie: owner });
    }
    for (const path of ['/api/consent', '/api/staff/login', '/api/admin/settings', '/api/rules/confirm']) {
      await check('10k body keys', 'POST', path, { cookie: owner, 'content-type': 'application/json', origin: handle.url }, manyKeys);
    }
    // long headers: one long value under and over the limit, a long cookie, a long forwarded address, many headers
    const manyHeaders = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`x-h${i}`, 'v']));
    const headerCases: [string, Record<string, string>][] = [
      ['8 kB header', { 'x-long': 'h'.repeat(8_000) }],
      ['20 kB header', { 'x-long': 'h'.repeat(20_000) }],
      ['8 kB cookie', { cookie: `gk_session=${'c'.repeat(8_000)}; gk_session.sig=${'s'.repeat(40)}` }],
      ['8 kB forwarded address', { 'x-forwarded-for': `${'9.'.repeat(4_000)}1` }],
      [
        '8 kB accept headers',
        {
          accept: `text/html;q=0.${'9'.repeat(8_000)}`,
          'accept-encoding': 'br;q=0.5,'.repeat(500),
          'accept-language': 'en;'.repeat(1_500),
        },
      ],
      ['500 headers', manyHeaders],
    ];
    for (const [label, headers] of headerCases) {
      for (const path of ['/', '/oauth/callback?code=a&state=b', '/api/consent/token', '/api/admin/users', '/verify'])
        await check(label, 'GET', path, headers);
    }
    expect(failures).toEqual([]);
  });

  it('unknown paths and methods answer 404/405-style errors, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
        fc.oneof(text, fc.webPath()),
        async (method, tail) => {
          const path = `/api/${encode(tail)}`;
          const res = await request(handle.url)[method.toLowerCase() as 'get'](path).set('Cookie', owner);
          return res.status < 500;
        },
      ),
      { numRuns: 40 },
    );
  });
});
