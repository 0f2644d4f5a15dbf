import express from 'express';
import pg from 'pg';
import request from 'supertest';
import { openPostgres, type Database } from '../../db/client';
import { silentLogger } from '../../logger';
import { createTestDatabase } from '../../test-support/database';
import { describeOn, postgresTestUrl } from '../../test-support/engine-pass';
import { errorHandler } from './errors';

function appThrowing(handler: express.RequestHandler) {
  const app = express();
  app.get('/probe', handler);
  app.use(errorHandler(silentLogger));
  return app;
}

// no database here: the PGlite pass runs it once
describeOn('pglite')('error handler', () => {
  it('answers a lost database connection with 503 and Retry-After, never a stack', async () => {
    for (const error of [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      new Error('Connection terminated unexpectedly'),
      new Error('query failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }) }),
    ]) {
      const res = await request(appThrowing(() => Promise.reject(error))).get('/probe');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body).toEqual({ error: 'The service is briefly unavailable. Please try again in a moment.', code: 'unavailable' });
    }
  });

  it('answers any other fault with a plain 500', async () => {
    const res = await request(appThrowing(() => Promise.reject(Object.assign(new Error('duplicate key'), { code: '23505' })))).get(
      '/probe',
    );
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Internal server error', code: 'internal' });
    expect(JSON.stringify(res.body)).not.toMatch(/at .+\.ts/);
  });
});

describeOn('postgres')('error handler [postgres]', () => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database.close();
  });

  it('answers 503 with Retry-After when every pool connection stays busy past the wait (a crowd), not a 500', async () => {
    // the product's pool waits POOL_CHECKOUT_WAIT_MS; a pool of one that waits 50 ms gives the same error quickly
    const pool = new pg.Pool({ connectionString: postgresTestUrl()!, max: 1, connectionTimeoutMillis: 50 });
    const held = await pool.connect();
    try {
      const res = await request(appThrowing(async (_req, res) => res.json(await pool.query('select 1')))).get('/probe');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body.code).toBe('unavailable');
    } finally {
      held.release();
      await pool.end();
    }
  });

  it('answers 503 when the server terminates the connection mid-query, and the next request works', async () => {
    const app = appThrowing(async (_req, res) => {
      const { rows } = await database.query<{ pid: number }>('select pg_backend_pid() as pid, pg_sleep(0.5)');
      res.json({ pid: rows[0]?.pid });
    });
    const pending = request(app).get('/probe');
    const admin = await openPostgres({ url: postgresTestUrl()!, connectTimeoutSeconds: 5, poolMax: 1 });
    try {
      const started = Date.now();
      let killed = 0;
      const response = pending.then((r) => r);
      while (killed === 0 && Date.now() - started < 5000) {
        const { rows } = await admin.query<{ n: number }>(
          "select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where query like 'select pg_backend_pid()%' and pid <> pg_backend_pid()",
        );
        killed = rows[0]?.n ?? 0;
      }
      expect(killed).toBe(1);
      expect((await response).status).toBe(503);
    } finally {
      await admin.close();
    }
    expect((await request(app).get('/probe')).status).toBe(200);
  });
});
