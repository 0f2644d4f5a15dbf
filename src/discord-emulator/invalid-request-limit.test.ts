import { createDiscordEmulator, type DiscordEmulator } from './index';

/**
 * Discord's "Invalid Request Limit aka Cloudflare bans" (docs: Rate Limits): an address
 * whose requests draw too many 401, 403 or 429 answers (429s of scope `shared` aside) is
 * restricted from the API for a while. Discord documents no body or headers for the
 * restriction: it is Cloudflare's, in front of the API, so none of the API's JSON or
 * X-RateLimit-* headers; Cloudflare answers a rate-limit block (its error 1015) with a 429,
 * `error code: 1015` in plain text to a client that is not a browser, and a Retry-After.
 */
describe("the emulator's invalid request limit", () => {
  let emulator: DiscordEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  const call = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${emulator!.apiBase}/v10${path}`, { ...init, headers: { Authorization: `Bot ${token}`, ...init.headers } });

  it("counts 401, 403 and 429 (not scope shared) per address, then answers every route with Cloudflare's 1015 until the block ends", async () => {
    emulator = await createDiscordEmulator({ invalidRequestLimit: { limit: 5, windowMs: 60_000, banMs: 1_500 } });
    const token = emulator.application.botToken;
    for (let i = 0; i < 3; i++) expect((await call('/users/@me', 'not-the-token')).status).toBe(401);
    // a shared 429 is not counted: ten of them do not reach the limit
    emulator.faults.set('rate429', { routes: /^\/users\/@me$/, count: 10, retryAfterSeconds: 0.01 });
    for (let i = 0; i < 10; i++) expect((await call('/users/@me', token)).status).toBe(429);
    expect((await call('/users/@me', token)).status).toBe(200);
    expect(emulator.invalidRequests).toMatchObject({ limit: 5, bansImposed: 0 });
    expect(emulator.invalidRequests!.highest()).toBe(3);

    // a 403 counts: the fifth invalid answer blocks the address
    const owner = emulator.state.guild.ownerId;
    expect((await call(`/guilds/${emulator.guild.id}/members/${owner}`, token, { method: 'DELETE' })).status).toBe(403);
    expect((await call('/users/@me', 'not-the-token')).status).toBe(401);
    expect(emulator.invalidRequests!.bansImposed).toBe(1);

    for (const blocked of [
      await call('/users/@me', token),
      await fetch(`${emulator.apiBase}/v10/oauth2/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'authorization_code' }),
      }),
    ]) {
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await blocked.text()).toBe('error code: 1015');
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(2);
      expect([...blocked.headers.keys()].filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
    }

    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await call('/users/@me', token)).status).toBe(200);
  });
});
