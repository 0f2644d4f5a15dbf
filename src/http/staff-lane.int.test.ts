import { performance } from 'node:perf_hooks';
import request from 'supertest';
import type { Database } from '../db/client';
import { describeEngines } from '../test-support/database';
import { useWorkerDatabase } from '../test-support/worker-database';
import { createStaffTestApp, seedTeam, TEAM } from '../test-support/staff-test-kit';

jest.setTimeout(120_000);

/**
 * The owner signs in while visitors' requests hold the database: every connection of the PostgreSQL
 * pool busy with more waiting for one, or a queue of statements on the embedded engine's one
 * connection (in its worker thread, as the product runs it). Staff go on a lane of their own
 * (db/staff-lane.ts), so the sign-in answers long before the visitors' work is through.
 */
describeEngines('staff sign-in while visitors saturate the database', (getDatabase, engine) => {
  const workerDatabase = useWorkerDatabase(engine, getDatabase, 'gk-staff-lane-');
  let database: Database;
  beforeAll(async () => {
    database = workerDatabase();
    await seedTeam(database.db);
  });

  /** visitors' work outside the lane, for about three seconds: on PostgreSQL more statements than the test pool's 5 connections */
  const saturate = () =>
    engine === 'postgres'
      ? Array.from({ length: 8 }, () => database.query('select pg_sleep(3)'))
      : Array.from({ length: 30 }, () => database.query('select pg_sleep(0.1)'));

  it("answers the owner's sign-in before the visitors' queued work is through", async () => {
    const { app } = createStaffTestApp(database, { env: { TRUST_PROXY: 'loopback' } });
    // a first request warms the app (routes, the password check's code) outside the measurement
    expect((await request(app).post('/api/staff/login').send({ username: 'Mod', password: TEAM.mod.password })).status).toBe(200);

    let visitorsDone = false;
    const visitors = Promise.all(saturate()).then(() => (visitorsDone = true));
    await new Promise((resolve) => setTimeout(resolve, 200)); // the visitors' statements are under way and queued
    const started = performance.now();
    const res = await request(app)
      .post('/api/staff/login')
      .set('X-Forwarded-For', '203.0.113.10')
      .send({ username: 'Owner', password: TEAM.owner.password });
    const tookMs = performance.now() - started;
    expect(res.status).toBe(200);
    expect({ visitorsDone, tookMs: tookMs < 2_000 }).toEqual({ visitorsDone: false, tookMs: true });
    await visitors;
  });
});
