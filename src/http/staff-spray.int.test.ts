import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import bcrypt from 'bcryptjs';
import request from 'supertest';
import { createBoundedQueue, createSignInGate, DEVICE_COOKIE, type BcryptRunner } from '../modules/staff';
import type { Database } from '../db/client';
import { describeEngines } from '../test-support/database';
import { useWorkerDatabase } from '../test-support/worker-database';
import { createStaffTestApp, seedTeam, TEAM } from '../test-support/staff-test-kit';

jest.setTimeout(120_000);

const OWNER_HOME = '203.0.113.10';
/** the owner's phone on mobile data: the same browser, an address it never signed in from */
const OWNER_ELSEWHERE = '198.51.100.77';
const SPRAYERS = 30;

/**
 * Password checks one at a time, as on a small machine, each taking about what a cost-12 check
 * takes there, with room to wait (as the test kit's inline checks have): every sign-in let through
 * the gate holds its place there for a while, so the spray keeps the gate full and its queue too.
 */
function slowBcrypt(): BcryptRunner {
  const queue = createBoundedQueue({ concurrency: 1, queueLimit: 64 });
  return {
    hash: (password, cost) => queue.run(async () => (await sleep(100), bcrypt.hash(password, cost))),
    compare: (password, hash, options) => queue.run(async () => (await sleep(100), bcrypt.compare(password, hash)), options),
    close: async () => {},
  };
}

/**
 * A password spray from many addresses (a new made-up username and a new address each time, as
 * many in flight as the sprayer likes) keeps sign-ins from unknown devices saturated. The owner's
 * browser signed in before and holds the device cookie: it signs in at once, from its usual
 * address and from one it never used, because it skips the gate the spray queues at
 * (sign-in-gate.ts) and counts as a known client for the throttle (device-cookie.ts).
 */
describeEngines('the owner signs in from a known device during a password spray from many addresses', (getDatabase, engine) => {
  const workerDatabase = useWorkerDatabase(engine, getDatabase, 'gk-staff-spray-');
  let database: Database;
  beforeAll(async () => {
    database = workerDatabase();
    await seedTeam(database.db);
  });

  it('answers the owner with 200 within 2 s while the spray fills the gate', async () => {
    const gate = createSignInGate();
    const { app } = createStaffTestApp(database, { bcrypt: slowBcrypt(), signInGate: gate });
    const server = http.createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const first = await request(url).post('/api/staff/login').set('X-Forwarded-For', OWNER_HOME).send(TEAM.owner);
      expect(first.status).toBe(200);
      const device = ((first.headers['set-cookie'] as unknown as string[] | undefined) ?? [])
        .map((cookie) => cookie.split(';')[0]!)
        .find((pair) => pair.startsWith(`${DEVICE_COOKIE}=`));
      expect(device).toBeDefined();

      let spraying = true;
      let sent = 0;
      let peakWaiting = 0;
      const statuses: Record<number, number> = {};
      const busy: Array<{ retryAfter: string; error: string }> = [];
      const sprayer = async () => {
        while (spraying) {
          const i = sent++;
          const res = await request(url)
            .post('/api/staff/login')
            .set('X-Forwarded-For', `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)
            .send({ username: `spray-${i}`, password: `guess-${i}-password` });
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          peakWaiting = Math.max(peakWaiting, gate.waiting);
          if (res.status === 429 && busy.length < 3) busy.push({ retryAfter: String(res.headers['retry-after']), error: res.body.error });
        }
      };
      const spray = Promise.all(Array.from({ length: SPRAYERS }, sprayer));
      await sleep(1_500); // the spray is under way: the gate is full, its queue too

      const owner = async (address: string) => {
        const started = performance.now();
        const res = await request(url).post('/api/staff/login').set('X-Forwarded-For', address).set('Cookie', device!).send(TEAM.owner);
        return { status: res.status, fast: performance.now() - started < 2_000 };
      };
      const fromHome = await owner(OWNER_HOME);
      const fromElsewhere = await owner(OWNER_ELSEWHERE);
      spraying = false;
      await spray;

      expect({ fromHome, fromElsewhere }).toEqual({ fromHome: { status: 200, fast: true }, fromElsewhere: { status: 200, fast: true } });
      // the spray was held at the gate: refused at once as busy, with the wait the text says
      expect(peakWaiting).toBe(8);
      expect(busy[0]).toEqual({ retryAfter: '2', error: 'The server is busy checking passwords. Try again in 2 seconds.' });
      expect(Object.keys(statuses).filter((status) => Number(status) >= 500)).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
