import express from 'express';
import request from 'supertest';
import { canonicalLoopbackRedirect, isLoopbackHostname } from './canonical-loopback';

describe('isLoopbackHostname', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['localhost.', true],
    ['app.localhost', true],
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['[::1]', true],
    ['::1', true],
    ['128.0.0.1', false],
    ['127.0.0.256', false],
    ['192.168.1.20', false],
    ['[::2]', false],
    ['localhost.example.com', false],
    ['verify.example.com', false],
  ])('%s → %s', (hostname, loopback) => {
    expect(isLoopbackHostname(hostname)).toBe(loopback);
  });
});

describe('canonicalLoopbackRedirect', () => {
  const app = express();
  app.use(canonicalLoopbackRedirect('http://localhost:3000'));
  app.all(/.*/, (_req, res) => {
    res.status(200).send('served');
  });

  it.each(['127.0.0.1:3000', '[::1]:3000', '127.0.0.2:3000'])(
    'sends a page opened on %s to the printed address, path and query kept',
    async (host) => {
      const res = await request(app).get('/oauth/start?x=1&y=%20').set('Host', host);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('http://localhost:3000/oauth/start?x=1&y=%20');
      expect(res.headers['cache-control']).toBe('no-store');
    },
  );

  it('redirects HEAD too', async () => {
    const res = await request(app).head('/').set('Host', '127.0.0.1:3000');
    expect(res.status).toBe(302);
  });

  it.each(['localhost:3000', 'LOCALHOST:3000', '192.168.1.20:3000', 'verify.example.com', '', '127.0.0.1:5173', '127.0.0.1'])(
    'serves %j as is',
    async (host) => {
      const res = await request(app).get('/').set('Host', host);
      expect(res.status).toBe(200);
    },
  );

  it('lets other methods through (a form posted from the printed address never comes from another name)', async () => {
    const res = await request(app).post('/api/consent').set('Host', '127.0.0.1:3000').send({});
    expect(res.status).toBe(200);
  });

  it('keeps a canonical 127.0.0.1 when that is the printed address, sending localhost there', async () => {
    const other = express();
    other.use(canonicalLoopbackRedirect('http://127.0.0.1:4000'));
    other.get('/', (_req, res) => void res.send('ok'));
    expect((await request(other).get('/').set('Host', '127.0.0.1:4000')).status).toBe(200);
    expect((await request(other).get('/').set('Host', 'localhost:4000')).headers.location).toBe('http://127.0.0.1:4000/');
  });
});
