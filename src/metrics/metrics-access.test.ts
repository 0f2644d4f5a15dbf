import express from 'express';
import request from 'supertest';
import { metricsAccess } from './metrics-access';

const appWith = (token: string | undefined, trustProxy: false | string = false) => {
  const app = express();
  app.set('trust proxy', trustProxy);
  app.get('/metrics', metricsAccess(token), (_req, res) => {
    res.type('text').send('gatekeeper_up 1');
  });
  return app;
};

describe('metrics access', () => {
  it('answers a direct loopback caller when no token is set', async () => {
    expect((await request(appWith(undefined)).get('/metrics')).status).toBe(200);
  });

  it('refuses a request that came through a proxy when no token is set, whatever the proxy says', async () => {
    const viaProxy = await request(appWith(undefined)).get('/metrics').set('X-Forwarded-For', '127.0.0.1');
    expect(viaProxy.status).toBe(403);
    expect(viaProxy.body.error).toMatch(/METRICS_TOKEN/);
    expect((await request(appWith(undefined, 'loopback')).get('/metrics').set('X-Forwarded-For', '203.0.113.9')).status).toBe(403);
  });

  it('needs the bearer token when one is set: 401 JSON without it or with a wrong one', async () => {
    const app = appWith('a-long-metrics-token');
    const missing = await request(app).get('/metrics');
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: expect.any(String) });
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await request(app).get('/metrics').set('Authorization', 'Bearer a-long-metrics-tokeX')).status).toBe(401);
    expect((await request(app).get('/metrics').set('Authorization', 'Basic a-long-metrics-token')).status).toBe(401);
    expect((await request(app).get('/metrics').set('Authorization', 'Bearer a-long-metrics-token')).status).toBe(200);
  });
});
