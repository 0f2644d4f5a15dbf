import { Routes } from 'discord-api-types/v10';
import { createDiscordEmulator, type DiscordEmulator } from './index';
import { createEmulatorRest } from './emulator-clients';

const ROLE_ROUTE = '/guilds/:guildId/members/:userId/roles/:roleId';

function rawRolePut(emulator: DiscordEmulator, userId: string, roleId: string): Promise<Response> {
  return fetch(`${emulator.apiBase}/v10/guilds/${emulator.guild.id}/members/${userId}/roles/${roleId}`, {
    method: 'PUT',
    headers: { Authorization: `Bot ${emulator.application.botToken}` },
  });
}

describe('Discord emulator rate limits', () => {
  let emulator: DiscordEmulator | undefined;

  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('limits a per-route bucket with Discord headers and 429 bodies', async () => {
    emulator = await createDiscordEmulator();
    const member = emulator.state.findUserByName('sandbox-member')?.id ?? '';
    const role = emulator.guild.roleId('Limited Access');
    // Add / Remove Guild Member Role: one bucket of 10 per 10 s per guild, as bots observe it
    const responses = await Promise.all(Array.from({ length: 13 }, () => rawRolePut(emulator as DiscordEmulator, member, role)));
    const ok = responses.filter((r) => r.status === 204);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(10);
    expect(limited).toHaveLength(3);

    const headers = ok[0]?.headers;
    expect(headers?.get('x-ratelimit-limit')).toBe('10');
    expect(headers?.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(headers?.get('x-ratelimit-reset-after'))).toBeGreaterThan(0);
    expect(Number(headers?.get('x-ratelimit-reset-after'))).toBeLessThanOrEqual(10);
    expect(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    const body = (await limited[0]?.json()) as { message: string; retry_after: number; global: boolean };
    expect(body).toMatchObject({ message: 'You are being rate limited.', code: 0, global: false });
    expect(body.retry_after).toBeGreaterThan(0);
    expect(limited[0]?.headers.get('retry-after')).toBe('10');
    expect(limited[0]?.headers.get('x-ratelimit-scope')).toBe('user');
    expect(emulator.state.rateLimitHits).toBe(3);
    // the request log keeps what each answer advertised (the bench reads its projections from it)
    const advertised = emulator.state.requestLog.filter((e) => e.route === ROLE_ROUTE && e.status === 204).map((e) => e.advertised);
    expect(advertised).toHaveLength(10);
    for (const limit of advertised) {
      expect(limit?.limit).toBe(10);
      expect(limit?.resetAfterMs).toBeGreaterThan(0);
      expect(limit?.resetAfterMs).toBeLessThanOrEqual(10_000);
    }
    expect(Math.max(...advertised.map((a) => a?.resetAfterMs ?? 0))).toBeGreaterThan(9000);
  });

  it('keeps Add, Modify and Remove Guild Member in buckets of their own (Discord keys them by method)', async () => {
    emulator = await createDiscordEmulator();
    const discord = emulator;
    const member = discord.state.findUserByName('sandbox-member')?.id ?? '';
    const call = (method: 'PATCH' | 'PUT', body: unknown) =>
      fetch(`${discord.apiBase}/v10/guilds/${discord.guild.id}/members/${member}`, {
        method,
        headers: { Authorization: `Bot ${discord.application.botToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const patches = [];
    for (let i = 0; i < 11; i++) patches.push(await call('PATCH', {}));
    expect(patches.slice(0, 10).every((r) => r.status === 200)).toBe(true);
    expect(patches[10]?.status).toBe(429);
    expect(patches[0]?.headers.get('x-ratelimit-limit')).toBe('10');
    // the PATCH bucket is spent; PUT (the join) still answers, with another bucket hash
    const put = await call('PUT', { access_token: 'not-a-token' });
    expect(put.status).toBe(403);
    expect(put.headers.get('x-ratelimit-remaining')).toBe('9');
    expect(put.headers.get('x-ratelimit-bucket')).not.toBe(patches[0]?.headers.get('x-ratelimit-bucket'));
  });

  it('limits requests per bot token globally, with X-RateLimit-Global', async () => {
    emulator = await createDiscordEmulator({ rateLimits: { global: { limit: 10, windowMs: 1000 } } });
    const channels = emulator.state.guild.channels;
    const ids = [...channels.keys()];
    const token = emulator.application.botToken;
    const responses = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        fetch(`${emulator?.apiBase ?? ''}/v10/channels/${ids[i % ids.length] ?? ''}`, { headers: { Authorization: `Bot ${token}` } }),
      ),
    );
    const limited = responses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(5);
    expect(limited[0]?.headers.get('x-ratelimit-global')).toBe('true');
    expect(await limited[0]?.json()).toMatchObject({ global: true });
    // Interaction callbacks and webhooks are outside the global limit, as on Discord.
    expect(emulator.state.requests({ token: 'bot', status: 429 })).toHaveLength(5);
  });

  it('lets @discordjs/rest queue a burst of 40 role calls without a single 429', async () => {
    // Discord's shape (5 per window per guild) with a shorter window so the test takes seconds, not minutes; half a
    // second keeps the window well above the timer delays of a busy machine, which the client cannot see.
    emulator = await createDiscordEmulator({ rateLimits: { buckets: { 'member-roles': { limit: 5, windowMs: 500 } } } });
    const rest = createEmulatorRest(emulator);
    const users = Array.from({ length: 20 }, (_, i) => emulator?.createUser({ username: `burst-${i}` }).id ?? '');
    for (const id of users) emulator.addGuildMember(id);
    const roles = [emulator.guild.roleId('Verified'), emulator.guild.roleId('Unverified')];

    const started = Date.now();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const route = Routes.guildMemberRole(
          emulator?.guild.id ?? '',
          users[i % users.length] ?? '',
          roles[Math.floor(i / users.length) % 2] ?? '',
        );
        return rest.put(route);
      }),
    );

    expect(emulator.state.rateLimitHits).toBe(0);
    expect(emulator.state.requests({ route: ROLE_ROUTE, status: 204 })).toHaveLength(40);
    // 40 calls at 5 per window: the client waited out at least seven windows (the server's own windows, which it
    // counted above, start at a window's first call, so a sliding count of any 500 ms may see up to 10)
    expect(Date.now() - started).toBeGreaterThanOrEqual(7 * 500);
    expect(emulator.state.listMembers().find((m) => m.userId === users[0])?.roleNames).toEqual(
      expect.arrayContaining(['Verified', 'Unverified']),
    );
  }, 30_000);

  it('stays at zero 429s for concurrent workers once one call has taught @discordjs/rest the bucket', async () => {
    // Before the first response, @discordjs/rest queues a route under a provisional handler; requests made after the bucket
    // hash arrives go to a second handler that runs in parallel with the first, so cold concurrent starts can draw 429s.
    emulator = await createDiscordEmulator({ rateLimits: { buckets: { 'member-roles': { limit: 5, windowMs: 500 } } } });
    const rest = createEmulatorRest(emulator);
    const users = Array.from({ length: 12 }, (_, i) => emulator?.createUser({ username: `worker-${i}` }).id ?? '');
    for (const id of users) emulator.addGuildMember(id);
    const role = emulator.guild.roleId('Verified');
    const call = (i: number) => rest.put(Routes.guildMemberRole(emulator?.guild.id ?? '', users[i % users.length] ?? '', role));
    await call(0);
    const worker = async (w: number) => {
      for (let i = 0; i < 10; i++) await call(w * 10 + i);
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    expect(emulator.state.rateLimitHits).toBe(0);
    expect(emulator.state.requests({ route: ROLE_ROUTE, status: 204 })).toHaveLength(41);
  }, 30_000);

  it('scales route windows with timeScale, keeping the counts', async () => {
    emulator = await createDiscordEmulator({ rateLimits: { timeScale: 0.2 } }); // member roles: 10 per 2 s instead of 10 s
    const member = emulator.state.findUserByName('sandbox-member')?.id ?? '';
    const responses = await Promise.all(
      Array.from({ length: 11 }, () => rawRolePut(emulator as DiscordEmulator, member, emulator?.guild.roleId('Staff') ?? '')),
    );
    expect(responses.filter((r) => r.status === 429)).toHaveLength(1);
    expect(Number(responses[0]?.headers.get('x-ratelimit-reset-after'))).toBeLessThanOrEqual(2);
  });

  it('sends no rate-limit headers and never limits when switched off', async () => {
    emulator = await createDiscordEmulator({ rateLimits: false });
    const member = emulator.state.findUserByName('sandbox-member')?.id ?? '';
    const role = emulator.guild.roleId('Limited Access');
    const responses = await Promise.all(Array.from({ length: 20 }, () => rawRolePut(emulator as DiscordEmulator, member, role)));
    expect(responses.every((r) => r.status === 204)).toBe(true);
    expect(responses[0]?.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
