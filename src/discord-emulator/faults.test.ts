import { DiscordAPIError } from '@discordjs/rest';
import { Routes, type APIUser } from 'discord-api-types/v10';
import { createDiscordEmulator, type DiscordEmulator } from './index';
import { createEmulatorRest } from './emulator-clients';

describe('Discord emulator faults', () => {
  let emulator: DiscordEmulator;

  beforeEach(async () => {
    emulator = await createDiscordEmulator({ rateLimits: false });
  });

  afterEach(async () => {
    await emulator.close();
  });

  const rest = (options: { timeout?: number; retries?: number } = {}) =>
    createEmulatorRest(emulator, emulator.application.botToken, options);

  it('answers 500 for the next N matching requests, which @discordjs/rest retries', async () => {
    emulator.faults.set('error500', { routes: /^\/users\//, count: 2 });
    const user = (await rest({ retries: 3 }).get(Routes.user('@me'))) as APIUser;
    expect(user.id).toBe(emulator.application.botUserId);
    expect(emulator.state.requests({ route: '/users/@me' }).map((r) => r.status)).toEqual([500, 500, 200]);
    expect(emulator.faults.injected.error500).toBe(2);
  });

  it('leaves other routes alone and gives up after the client retries are spent', async () => {
    emulator.faults.set('error500', { routes: /\/roles\// });
    await expect(rest().get(Routes.guild(emulator.guild.id))).resolves.toBeDefined();
    const member = emulator.state.findUserByName('sandbox-member')?.id ?? '';
    await expect(
      rest({ retries: 1 }).put(Routes.guildMemberRole(emulator.guild.id, member, emulator.guild.roleId('Staff'))),
    ).rejects.toThrow();
    expect(emulator.state.memberRoleNames(member)).not.toContain('Staff');
    emulator.faults.set('none');
    await rest().put(Routes.guildMemberRole(emulator.guild.id, member, emulator.guild.roleId('Staff')));
    expect(emulator.state.memberRoleNames(member)).toContain('Staff');
  });

  it('hangs requests until the client times out, then serves the retry', async () => {
    emulator.faults.set('hang', { count: 1 });
    const started = Date.now();
    const user = (await rest({ timeout: 300, retries: 1 }).get(Routes.user('@me'))) as APIUser;
    expect(user.id).toBe(emulator.application.botUserId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(emulator.faults.injected.hang).toBe(1);
  });

  it('closes hanging requests when the emulator closes', async () => {
    emulator.faults.set('hang');
    const pending = fetch(`${emulator.apiBase}/v10/users/@me`, { headers: { Authorization: `Bot ${emulator.application.botToken}` } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await emulator.close();
    await expect(pending).rejects.toThrow();
    emulator = await createDiscordEmulator({ rateLimits: false }); // for afterEach
  });

  it('answers a burst of 429s with Retry-After on the matching route, then the real answer', async () => {
    emulator.faults.set('rate429', { routes: /^\/oauth2\/token$/, count: 2, retryAfterSeconds: 1.5 });
    const token = () =>
      fetch(`${emulator.apiBase}/v10/oauth2/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=nope',
      });
    for (let i = 0; i < 2; i++) {
      const limited = await token();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('2');
      expect(await limited.json()).toMatchObject({ retry_after: 1.5, global: false });
    }
    expect((await token()).status).not.toBe(429);
    expect(emulator.faults.injected.rate429).toBe(2);
  });

  it("answers Discord's own 403 and 404 bodies on the matching route, then the real answer", async () => {
    const member = emulator.state.findUserByName('sandbox-member')?.id ?? '';
    const path = Routes.guildMemberRole(emulator.guild.id, member, emulator.guild.roleId('Staff'));
    const bodies: unknown[] = [];
    for (const mode of ['missingPermissions', 'unknownRole', 'unknownMember'] as const) {
      emulator.faults.set(mode, { routes: /\/roles\//, count: 1 });
      const failed = await rest()
        .put(path)
        .catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(DiscordAPIError);
      bodies.push({ status: (failed as DiscordAPIError).status, ...(failed as DiscordAPIError).rawError });
    }
    expect(bodies).toEqual([
      { status: 403, message: 'Missing Permissions', code: 50013 },
      { status: 404, message: 'Unknown Role', code: 10011 },
      { status: 404, message: 'Unknown Member', code: 10007 },
    ]);
    expect(emulator.state.memberRoleNames(member)).not.toContain('Staff');
    await rest().put(path);
    expect(emulator.state.memberRoleNames(member)).toContain('Staff');
    expect(emulator.faults.injected).toMatchObject({ missingPermissions: 1, unknownRole: 1, unknownMember: 1 });
  });
});
