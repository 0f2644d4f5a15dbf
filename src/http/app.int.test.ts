import request from 'supertest';
import express from 'express';
import { createTestDatabase } from '../test-support/database';
import { createTestContext } from '../test-support/context';
import type { Database } from '../db/client';
import { buildApp } from './compose';
import { BadRequest } from '../errors';

describe('http app', () => {
  let database: Database;
  let app: ReturnType<typeof buildApp>;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { ctx } = createTestContext(database, { RETENTION_DAYS: '14' });
    const probe = express.Router();
    probe.post('/probe', (req, res) => {
      res.json({ got: req.body });
    });
    probe.get('/boom', () => {
      throw new Error('secret internals');
    });
    probe.get('/bad', () => {
      throw BadRequest('Username is required', 'username');
    });
    app = buildApp(ctx, { api: [probe], root: [] });
  });
  afterAll(() => database.close());

  it('serves the config', async () => {
    const res = await request(app).get('/api/config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ dataRetentionDays: 14, sandbox: true });
  });

  it('reports health and readiness', async () => {
    expect((await request(app).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', database: 'pglite' });
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const res = await request(app).get('/api/nope');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/not found/);
  });

  it('answers malformed JSON with a 400', async () => {
    const res = await request(app).post('/api/probe').set('Content-Type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed JSON body', code: 'bad_json' });
  });

  it('never leaks a stack trace', async () => {
    const res = await request(app).get('/api/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Internal server error', code: 'internal' });
    expect(JSON.stringify(res.body)).not.toContain('secret internals');
  });

  it('serialises app errors with their field', async () => {
    const res = await request(app).get('/api/bad');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Username is required', code: 'bad_request', field: 'username' });
  });

  it('refuses cross-site and non-JSON state changes', async () => {
    const cross = await request(app).post('/api/probe').set('Origin', 'https://evil.example').send({ a: 1 });
    expect(cross.status).toBe(403);
    const fetchSite = await request(app).post('/api/probe').set('Sec-Fetch-Site', 'cross-site').send({ a: 1 });
    expect(fetchSite.status).toBe(403);
    const form = await request(app).post('/api/probe').type('form').send('a=1');
    expect(form.status).toBe(415);
    const ok = await request(app).post('/api/probe').set('Sec-Fetch-Site', 'same-origin').send({ a: 1 });
    expect(ok.body).toEqual({ got: { a: 1 } });
    // an empty HTML form still declares its type: refused even without a body
    const emptyForm = await request(app).post('/api/probe').set('Content-Type', 'application/x-www-form-urlencoded');
    expect(emptyForm.status).toBe(415);
    // what the web client sends for DELETE and bodiless POSTs: JSON type, no body
    const bodiless = await request(app).post('/api/probe').set('Content-Type', 'application/json');
    expect(bodiless.status).toBe(200);
    const charset = await request(app).post('/api/probe').set('Content-Type', 'application/json; charset=utf-8').send('{"a":2}');
    expect(charset.body).toEqual({ got: { a: 2 } });
  });

  it('rejects oversized bodies', async () => {
    const res = await request(app)
      .post('/api/probe')
      .send({ big: 'x'.repeat(100_000) });
    expect(res.status).toBe(413);
  });
});
