import { createManualClock } from '../clock';
import { createMembersService } from '../modules/members/members.service';
import { describeEngines } from '../test-support/database';
import { useTestGatekeeper, walkVisitorFlow } from '../test-support/gatekeeper';

jest.setTimeout(90_000);

const OWNER = { type: 'staff' as const, id: '1', name: 'Owner' };
const STAFF = { kind: 'discord' as const, discordId: '500000000000000099', username: 'helper' };

/**
 * Linked Roles after verification, against the emulator: the verification sign-in asks for
 * role_connections.write while Linked Roles are on, keeps the grant sealed, writes the member's
 * role connection, and later decisions update it through the outbox. Every call's body is checked
 * against Discord's OpenAPI description by the emulator.
 */
describeEngines('Linked Roles: the role connection follows the member\'s record', (getDatabase) => {
  const server = useTestGatekeeper(getDatabase);
  const emulator = () => server.handle.discord.emulator!;
  const members = () => createMembersService({ database: getDatabase(), clock: createManualClock(new Date()), outbox: server.handle.services.outbox });
  const drain = () => server.handle.services.outboxWorker.drain();
  const grantOf = async (discordId: string) =>
    (await getDatabase().query<{ sealed_refresh_token: string; sealed_access_token: string; access_expires_at: Date }>('select sealed_refresh_token, sealed_access_token, access_expires_at from role_connection_grants where discord_id = $1', [discordId])).rows[0];
  const connectionCalls = async (discordId: string) =>
    (await getDatabase().query<{ status: string; attempts: number; last_error: string | null; sealed: boolean }>(`select status, attempts, last_error, sealed_secret is not null as sealed from discord_outbox where kind = 'role_connection' and discord_id = $1 order by id`, [discordId])).rows;
  const click = async (userId: string) => {
    const channelId = emulator().guild.channelId('verification');
    const button = emulator().findButton(channelId, 'Complete Verification!')!;
    await emulator().clickButton({ userId, channelId, messageId: button.messageId, customId: button.customId });
  };
  /** The tokens the emulator holds for the user's grants to the app (refresh tokens). */
  const liveGrants = (userId: string) => [...emulator().state.oauth.refreshTokens.values()].filter((grant) => grant.userId === userId);

  it('off: the verification sign-in asks for identify and guilds.join only, and keeps no grant', async () => {
    const user = emulator().createUser({ username: 'no-linked-roles' });
    const { authorize } = await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    expect(authorize.searchParams.get('scope')).toBe('identify guilds.join');
    await drain();
    expect(await grantOf(user.id)).toBeUndefined();
    expect(emulator().state.roleConnections.get(user.id)).toBeUndefined();
    // the joined member's token is revoked once used, as before
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(liveGrants(user.id)).toEqual([]);
  });

  it('on: the grant is kept sealed, the connection written after verification and updated by /unverify, certain alt and manual verification', async () => {
    await server.handle.services.settings.update(OWNER, { linkedRoles: true });
    await server.handle.services.linkedRoles.ensure();
    const user = emulator().createUser({ username: 'linked-member', globalName: 'Linked Member' });
    const { authorize, agent } = await walkVisitorFlow(server.handle, { userId: user.id });
    expect(authorize.searchParams.get('scope')).toBe('identify guilds.join role_connections.write');

    const grant = await grantOf(user.id);
    expect(grant).toBeDefined();
    const [live] = liveGrants(user.id);
    // sealed: neither token is stored in clear
    expect(grant!.sealed_refresh_token).toMatch(/^v1\./);
    expect(grant!.sealed_refresh_token).not.toContain(live!.token);
    expect(grant!.sealed_access_token).not.toContain(live!.accessToken);

    await drain();
    // the join kept the token (it is the grant), and the connection says what the record says
    expect(liveGrants(user.id)).toHaveLength(1);
    expect(emulator().state.roleConnections.get(user.id)).toEqual({ platform_name: 'Gatekeeper', platform_username: 'linked-member', metadata: { verified: '0', not_alt: '1' } });

    // the rules confirmed make the member verified (the button then gives the role)
    await agent.post('/api/rules/confirm').expect(200);
    await drain();
    expect(emulator().state.roleConnections.get(user.id)!.metadata).toMatchObject({ verified: '1' });

    await click(user.id);
    await drain();
    const verified = emulator().state.roleConnections.get(user.id)!;
    expect(verified.metadata).toMatchObject({ verified: '1', not_alt: '1' });
    expect(Date.parse(verified.metadata.verified_since!)).toBeGreaterThan(Date.now() - 60_000);
    const role = emulator().createRole({ name: 'Gatekeeper verified' });
    emulator().setLinkedRole(role.id, [{ key: 'verified', value: 1 }]);
    expect(emulator().meetsLinkedRole(user.id, 'Gatekeeper verified')).toBe(true);

    await members().unverify(STAFF, user.id);
    await drain();
    expect(emulator().state.roleConnections.get(user.id)!.metadata).toEqual({ verified: '0', not_alt: '1' });
    expect(emulator().meetsLinkedRole(user.id, 'Gatekeeper verified')).toBe(false);

    await members().manualVerify(STAFF, user.id);
    await members().setAltStatus(STAFF, user.id, 'certain_alt');
    await drain();
    expect(emulator().state.roleConnections.get(user.id)!.metadata).toEqual({ verified: '0', not_alt: '0' });
    expect((await connectionCalls(user.id)).every((call) => call.status === 'done' && call.attempts === 1)).toBe(true);
  });

  it('renews a run-out access token with the refresh token (both rotate) and stores the new ones', async () => {
    const user = emulator().createUser({ username: 'linked-renew' });
    await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    await drain();
    const before = await grantOf(user.id);
    const [first] = liveGrants(user.id);
    await getDatabase().query(`update role_connection_grants set access_expires_at = now() - interval '1 minute' where discord_id = $1`, [user.id]);

    await click(user.id);
    await drain();
    expect(emulator().state.roleConnections.get(user.id)!.metadata).toMatchObject({ verified: '1' });
    const after = await grantOf(user.id);
    expect(after!.sealed_refresh_token).not.toBe(before!.sealed_refresh_token);
    expect(after!.access_expires_at.getTime()).toBeGreaterThan(Date.now());
    const renewed = liveGrants(user.id);
    expect(renewed.map((grant) => grant.token)).not.toContain(first!.token);
  });

  it('a member who revoked the app: the grant is dropped, the action ends once (no retry), nothing else breaks', async () => {
    const user = emulator().createUser({ username: 'linked-revoker' });
    await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    await drain();
    expect(emulator().revokeGrant(user.id)).toBe(1);

    await click(user.id);
    await drain();
    expect(await grantOf(user.id)).toBeUndefined();
    expect((await connectionCalls(user.id)).at(-1)).toMatchObject({ status: 'done', attempts: 1, last_error: null });
    // the member is verified all the same; later decisions queue nothing more for the connection
    const roles = emulator().state.guild.members.get(user.id)!.roles.map((id) => emulator().state.guild.roles.get(id)?.name);
    expect(roles).toEqual(['Verified']);
    const calls = (await connectionCalls(user.id)).length;
    await members().unverify(STAFF, user.id);
    await drain();
    expect(await connectionCalls(user.id)).toHaveLength(calls);
  });

  it('a deletion clears the connection with the member\'s grant, then revokes it; the grant goes with the record', async () => {
    const user = emulator().createUser({ username: 'linked-deleted' });
    await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    await drain();
    await click(user.id);
    await drain();
    expect(emulator().state.roleConnections.get(user.id)!.metadata).toMatchObject({ verified: '1' });

    // the dashboard's delete (the /privacy command's shares deleteMemberEverywhere)
    await members().remove({ id: 1, username: 'owner' }, user.id, 'dashboard');
    expect(await grantOf(user.id)).toBeUndefined();
    await drain();
    expect(emulator().state.roleConnections.get(user.id)).toEqual({ platform_name: 'Gatekeeper', platform_username: null, metadata: { verified: '0', not_alt: '0' } });
    expect(liveGrants(user.id)).toEqual([]);
    // the sealed token the outbox held is erased once done
    expect(await connectionCalls(user.id)).toEqual([{ status: 'done', attempts: 1, last_error: null, sealed: false }]);
  });
});
