import request from 'supertest';
import { describeEngines, resetDatabase } from '../test-support/database';
import { buildFingerprint, startTestGatekeeper } from '../test-support/gatekeeper';
import type { GatekeeperHandle } from '../server';

jest.setTimeout(60_000);

/**
 * The sandbox prints http://localhost:PORT; opened as http://127.0.0.1:PORT or http://[::1]:PORT
 * the page is sent to the printed address before anything starts, so the callback the
 * emulator sees is the one it registered (no "Invalid OAuth2 redirect_uri").
 */
describeEngines('sandbox under another loopback name', (getDatabase) => {
  let handle: GatekeeperHandle;
  let port: string;

  beforeAll(async () => {
    await resetDatabase(getDatabase());
    // every interface, as `npm run sandbox` does: the printed address is then http://localhost:PORT
    ({ handle } = await startTestGatekeeper(getDatabase(), { HOST: '0.0.0.0' }));
    port = new URL(handle.url).port;
  });
  afterAll(async () => handle?.stop());

  it('prints localhost', () => {
    expect(handle.url).toBe(`http://localhost:${port}`);
  });

  it.each(['/', '/rules?step=2', '/oauth/start', '/admin/login'])(
    'sends %s opened on 127.0.0.1 to localhost, path and query kept',
    async (path) => {
      const res = await request(`http://127.0.0.1:${port}`).get(path);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`http://localhost:${port}${path}`);
    },
  );

  it('sends a page opened with the name [::1] (as its Host header says) to localhost', async () => {
    const res = await request(`http://127.0.0.1:${port}`).get('/').set('Host', `[::1]:${port}`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`http://localhost:${port}/`);
  });

  it('answers health checks on any name', async () => {
    expect((await request(`http://127.0.0.1:${port}`).get('/healthz')).status).toBe(200);
  });

  it('starts a sign-in the emulator accepts once on the printed address', async () => {
    const agent = request.agent(`http://127.0.0.1:${port}`);
    const redirected = await agent.get('/');
    expect(redirected.headers.location).toBe(`http://localhost:${port}/`);
    // the browser follows to the printed address; the rest of the flow happens there
    const browser = request.agent(handle.url);
    const { body } = await browser.get('/api/consent/token').expect(200);
    await browser
      .post('/api/consent')
      .send({ consent: true, token: body.token, ...buildFingerprint() })
      .expect(200);
    const start = await browser.get('/oauth/start').expect(303);
    const authorize = new URL(start.headers.location as string);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`http://localhost:${port}/oauth/callback`);
    const page = await request(authorize.origin).get(`${authorize.pathname}${authorize.search}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Invalid OAuth2 redirect_uri');
  });
});
