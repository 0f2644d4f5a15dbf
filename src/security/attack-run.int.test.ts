import http from 'node:http';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import request from 'supertest';
import { createLogger } from '../logger';
import type { GatekeeperHandle } from '../server';
import { describeEngines, resetDatabase } from '../test-support/database';
import { changedTables, fingerprintTables, listTables, OWNER, ownerCookie, startSecurityGatekeeper } from '../test-support/security-kit';

/**
 * The cases an attack run against the whole product found, kept as regressions: control
 * characters in text, bodies that lie about their Content-Encoding, login throttling that
 * could be filled by strangers to lock the owner out, the Content-Security-Policy, and
 * /metrics answering anyone.
 */

jest.setTimeout(120_000);

const MEMBER_ID = '300000000000000001';
const TYPED = 'typed-secret-4711';

describeEngines('attack run regressions', (getDatabase) => {
  let handle: GatekeeperHandle;
  let owner: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    await resetDatabase(getDatabase());
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    handle = await startSecurityGatekeeper(getDatabase(), {
      logger: createLogger({ level: 'info', destination: sink }),
      env: { METRICS_TOKEN: 'metrics-token-0123456789' },
    });
    owner = await ownerCookie(handle);
  });
  afterAll(async () => {
    await handle?.stop();
  });

  const errorLines = () => logLines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);

  describe('control characters in text', () => {
    const cases: Array<[string, (text: string) => request.Test]> = [
      ['the anonymous login username', (t) => request(handle.url).post('/api/staff/login').send({ username: t, password: 'x' })],
      [
        'a note',
        (t) =>
          request(handle.url).post(`/api/admin/users/${MEMBER_ID}/notes`).set('Cookie', owner).set('Origin', handle.url).send({ note: t }),
      ],
      [
        'a Manual Entry field',
        (t) =>
          request(handle.url).post('/api/admin/manual-entry').set('Cookie', owner).set('Origin', handle.url).send({
            discordId: '300000000000000009',
            username: t,
            avatarUrl: null,
            status: 'verified',
            rulesConfirmed: 'true',
            manualAltStatus: null,
          }),
      ],
      ['?search= on the member list', (t) => request(handle.url).get('/api/admin/users').query({ search: t }).set('Cookie', owner)],
      ['an audit filter', (t) => request(handle.url).get('/api/admin/audit').query({ actor: t }).set('Cookie', owner)],
      [
        'a nested body key',
        (t) =>
          request(handle.url)
            .post('/api/staff/login')
            .send({ username: 'a', password: 'b', extra: { [t]: 1 } }),
      ],
    ];

    it.each(cases)('answers 400 JSON for NUL and other controls in %s, writes nothing, logs no typed text', async (_name, send) => {
      const tables = await listTables(getDatabase());
      for (const control of ['\u0000', '\u0007', '\u001b[31m', '\u007f', '\u0085']) {
        const before = await fingerprintTables(getDatabase(), tables);
        const linesBefore = logLines.length;
        const res = await send(`${TYPED}${control}x`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
        expect(JSON.stringify(res.body)).not.toContain(TYPED);
        expect(changedTables(before, await fingerprintTables(getDatabase(), tables))).toEqual([]);
        expect(logLines.slice(linesBefore).join('\n')).not.toContain(TYPED);
      }
      expect(errorLines()).toEqual([]);
    });

    it('still accepts tabs and line breaks in a multi-line body field', async () => {
      const res = await request(handle.url).post('/api/staff/login').send({ username: 'nobody', password: 'line one\n\tline two\r\n' });
      expect(res.status).toBe(401);
    });

    it('answers 400 for a percent-encoded control character in the path', async () => {
      const res = await request(handle.url).get('/api/admin/users/%00').set('Cookie', owner);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    });
  });

  describe('a body that lies about its Content-Encoding', () => {
    it.each(['gzip', 'deflate', 'br'])(
      'answers 400 JSON for Content-Encoding: %s over a plain body, without a session and without an error log',
      async (encoding) => {
        const res = await request(handle.url)
          .post('/api/staff/login')
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', encoding)
          .send('{"username":"a","password":"b"}');
        expect(res.status).toBe(400);
        expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
        expect(errorLines()).toEqual([]);
      },
    );

    it('answers 415 for an encoding it does not support', async () => {
      const res = await request(handle.url)
        .post('/api/staff/login')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'compress')
        .send('{}');
      expect(res.status).toBe(415);
      expect(res.body.error).toEqual(expect.any(String));
    });

    it('still reads a body that really is gzip', async () => {
      const body = zlib.gzipSync(Buffer.from(JSON.stringify({ username: 'nobody', password: 'wrong-password' })));
      // node:http, because supertest would serialise a Buffer body as JSON under this Content-Type
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${handle.url}/api/staff/login`,
          { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': body.length } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(status).toBe(401);
    });
  });

  describe('login throttling cannot lock out a correct password', () => {
    it('lets the owner in from a new address after 60 wrong passwords from 12 addresses, within the fixed delay', async () => {
      // the 12 addresses guess at once (each its 5 in turn), as a botnet would: the guesses over the
      // account's shared limit wait their fixed delay together rather than one after another
      const statuses = await Promise.all(
        Array.from({ length: 12 }, async (_, a) => {
          const seen: number[] = [];
          for (let i = 0; i < 5; i += 1) {
            seen.push(
              (
                await request(handle.url)
                  .post('/api/staff/login')
                  .set('X-Forwarded-For', `198.51.100.${a + 1}`)
                  .send({ username: OWNER.username, password: `guess-${a}-${i}` })
              ).status,
            );
          }
          return seen;
        }),
      );
      for (const status of statuses.flat()) expect([401, 429]).toContain(status);
      const started = Date.now();
      const res = await request(handle.url).post('/api/staff/login').set('X-Forwarded-For', '203.0.113.77').send(OWNER);
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(30_000);
    });

    it('refuses an address that 25 random usernames came from, yet lets in the owner who signed in from it before', async () => {
      const shared = '192.0.2.200';
      // the owner has signed in from this address before (a device of theirs): a known client for the address's and the global limits
      expect((await request(handle.url).post('/api/staff/login').set('X-Forwarded-For', shared).send(OWNER)).status).toBe(200);
      // all at once, as a spray would
      const spray = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          request(handle.url)
            .post('/api/staff/login')
            .set('X-Forwarded-For', shared)
            .send({ username: `random-${i}-${Math.random().toString(36).slice(2)}`, password: 'x' }),
        ),
      );
      // past the address's budget the spray is refused with the wait, before any password is checked
      const refused = spray.filter((r) => r.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThan(0);
      for (const r of spray) expect([401, 429]).toContain(r.status);
      const res = await request(handle.url).post('/api/staff/login').set('X-Forwarded-For', shared).send(OWNER);
      expect(res.status).toBe(200);
    });
  });

  describe('Content-Security-Policy', () => {
    it.each(['/api/config', '/api/no-such-route', '/healthz', '/oauth/callback'])('is strict on %s', async (path) => {
      const res = await request(handle.url).get(path);
      const csp = String(res.headers['content-security-policy']);
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "frame-ancestors 'none'",
        "form-action 'self'",
      ]) {
        expect(csp).toContain(directive);
      }
      const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
      expect(scriptSrc).toBe("'self'");
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).not.toMatch(/script-src-(elem|attr)/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });
  });

  describe('/metrics', () => {
    it('answers 401 JSON without the token or with a wrong one, and 200 with it', async () => {
      const none = await request(handle.url).get('/metrics');
      expect(none.status).toBe(401);
      expect(none.body.error).toEqual(expect.any(String));
      expect((await request(handle.url).get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789')).status).toBe(401);
      const ok = await request(handle.url).get('/metrics').set('Authorization', 'Bearer metrics-token-0123456789');
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('gatekeeper_');
    });
  });
});
