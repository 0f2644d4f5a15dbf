import request from 'supertest';
import { createBotRest } from '../../discord/discord-rest';
import { createDiscordEmulator } from '../../discord-emulator';
import { createLinkedRolesRegistration } from '../../discord/linked-roles-registration';
import { silentLogger } from '../../logger';
import { describeEngines } from '../../test-support/database';
import { buildMember } from '../../test-support/factories';
import { useTestGatekeeper } from '../../test-support/gatekeeper';
import { ROLE_CONNECTION_METADATA } from './role-connection';

jest.setTimeout(60_000);

const OWNER = { type: 'staff' as const, id: '1', name: 'Owner' };

/**
 * Linked Roles against the emulator: the metadata registration (bot token) and the member's role
 * connection written with their own token after the /linked-roles sign-in. Every call is checked
 * against Discord's OpenAPI description by the emulator (a departure fails the test).
 */
describeEngines('Linked Roles: "Verified with Gatekeeper"', (getDatabase) => {
  const server = useTestGatekeeper(getDatabase);

  /** A member arriving from Discord's role menu: /linked-roles → Discord's authorize page → the callback. */
  async function connect(userId: string) {
    const agent = request.agent(server.handle.url);
    const start = await agent.get('/linked-roles').expect(303);
    const authorize = new URL(start.headers.location as string);
    expect(authorize.searchParams.get('scope')).toBe('identify role_connections.write');
    const { code, state } = server.handle.discord.emulator!.authorizeAs(userId, authorize);
    const callback = await agent.get('/oauth/callback').query({ code, state }).expect(303);
    return callback.headers.location as string;
  }

  it('is off by default: /linked-roles answers a page saying so, and nothing is registered', async () => {
    const page = await request(server.handle.url).get('/linked-roles').expect(404);
    expect(page.text).toContain('Linked Roles are off');
    expect(server.handle.discord.emulator!.state.roleConnectionMetadata).toEqual([]);
  });

  it("registers the metadata, writes a verified member's role connection so a linked role's requirement is met, and an unverified one's so it is not", async () => {
    const { services } = server.handle;
    const emulator = server.handle.discord.emulator!;
    await services.settings.update(OWNER, { linkedRoles: true });

    const verifiedUser = emulator.createUser({ username: 'linked-verified', globalName: 'Linked Verified' });
    const newcomer = emulator.createUser({ username: 'linked-newcomer' });
    const verifiedAt = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000);
    await buildMember(getDatabase().db, { discordId: verifiedUser.id, username: 'linked-verified', verifiedAt });

    expect(await connect(verifiedUser.id)).toBe('/linked-roles/done?result=verified');
    expect(emulator.state.roleConnectionMetadata.map((field) => field.key)).toEqual(ROLE_CONNECTION_METADATA.map((field) => field.key));
    expect(emulator.state.roleConnections.get(verifiedUser.id)).toEqual({
      platform_name: 'Gatekeeper',
      platform_username: 'Linked Verified',
      metadata: { verified: '1', verified_since: verifiedAt.toISOString(), not_alt: '1' },
    });
    const page = await request(server.handle.url).get('/linked-roles/done?result=verified').expect(200);
    expect(page.text).toContain('Connected: Verified with Gatekeeper');

    // a server admin makes a role require it (verified = 1, verified for at least 2 days)
    const role = emulator.createRole({ name: 'Trusted' });
    emulator.setLinkedRole(role.id, [
      { key: 'verified', value: 1 },
      { key: 'verified_since', value: 2 },
    ]);
    expect(emulator.meetsLinkedRole(verifiedUser.id, 'Trusted')).toBe(true);

    expect(await connect(newcomer.id)).toBe('/linked-roles/done?result=not_verified');
    expect(emulator.state.roleConnections.get(newcomer.id)?.metadata).toEqual({ verified: '0', not_alt: '0' });
    expect(emulator.meetsLinkedRole(newcomer.id, 'Trusted')).toBe(false);
  });
});

describe('Linked Roles metadata registration against the emulator', () => {
  it('a registration Discord refuses marks Linked Roles unavailable with the reason, for the setup banner', async () => {
    const emulator = await createDiscordEmulator({ rateLimits: false });
    try {
      const rest = createBotRest({ apiBase: emulator.apiBase, botToken: emulator.application.botToken, timeoutMs: 5000 });
      // another application's id: Discord answers 50001 Missing Access to this bot
      const refused = createLinkedRolesRegistration({ rest, applicationId: '123456789012345678', enabled: true, logger: silentLogger });
      await refused.ensure();
      expect(refused.state()).toEqual({ state: 'unavailable', reason: 'Discord refused the metadata (403 50001: Missing Access)' });
      expect(refused.problem()?.problem).toBe(
        'Linked Roles are unavailable: Discord refused the metadata (403 50001: Missing Access). Verification works as usual.',
      );

      const registered = createLinkedRolesRegistration({
        rest,
        applicationId: emulator.application.id,
        enabled: true,
        logger: silentLogger,
      });
      await registered.ensure();
      expect(registered.state()).toEqual({ state: 'available' });
      expect(registered.problem()).toBeNull();
      expect(emulator.state.roleConnectionMetadata).toHaveLength(3);
    } finally {
      await emulator.close();
    }
  });
});
