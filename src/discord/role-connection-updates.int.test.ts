import request from 'supertest';
import { createManualClock } from '../clock';
import { createMembersService } from '../modules/members';
import { purgeExpired } from '../modules/retention';
import { describeEngines } from '../test-support/database';
import { buildFingerprint, useTestGatekeeper, walkVisitorFlow } from '../test-support/gatekeeper';

jest.setTimeout(90_000);

const OWNER = { type: 'staff' as const, id: '1', name: 'Owner' };
const STAFF = { kind: 'discord' as const, discordId: '500000000000000099', username: 'helper' };

/**
 * Linked Roles after verification, against the emulator: the verification sign-in asks for
 * role_connections.write while Linked Roles are on, keeps the grant sealed, writes the member's
 * role connection, and later decisions update it through the outbox. Every call's body is checked
 * against Discord's OpenAPI description by the emulator.
 */
describeEngines("Linked Roles: the role connection follows the member's record", (getDatabase) => {
  const server = useTestGatekeeper(getDatabase);
  const emulator = () => server.handle.discord.emulator!;
  const members = () =>
    createMembersService({ database: getDatabase(), clock: createManualClock(new Date()), outbox: server.handle.services.outbox });
  const drain = () => server.handle.services.outboxWorker.drain();
  const grantOf = async (discordId: string) =>
    (
      await getDatabase().query<{ sealed_refresh_token: string; sealed_access_token: string; access_expires_at: Date }>(
        'select sealed_refresh_token, sealed_access_token, access_expires_at from role_connection_grants where discord_id = $1',
        [discordId],
      )
    ).rows[0];
  const connectionCalls = async (discordId: string) =>
    (
      await getDatabase().query<{ status: string; attempts: number; last_error: string | null; sealed: boolean }>(
        `select status, attempts, last_error, sealed_secret is not null as sealed from discord_outbox where kind = 'role_connection' and discord_id = $1 order by id`,
        [discordId],
      )
    ).rows;
  const click = async (userId: string) => {
    const channelId = emulator().guild.channelId('verification');
    const button = emulator().findButton(channelId, 'Complete Verification!')!;
    await emulator().clickButton({ userId, channelId, messageId: button.messageId, customId: button.customId });
  };
  /** The tokens the emulator holds for the user's grants to the app (refresh tokens). */
  const liveGrants = (userId: string) => [...emulator().state.oauth.refreshTokens.values()].filter((grant) => grant.userId === userId);
  /** A member arriving from Discord's role menu: /linked-roles → Discord's authorize page → the callback. */
  const connectFromRoleMenu = async (userId: string) => {
    const agent = request.agent(server.handle.url);
    const start = await agent.get('/linked-roles').expect(303);
    const { code, state } = emulator().authorizeAs(userId, new URL(start.headers.location as string));
    const callback = await agent.get('/oauth/callback').query({ code, state }).expect(303);
    return callback.headers.location as string;
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
  const turnLinkedRolesOn = async () => {
    await server.handle.services.settings.update(OWNER, { linkedRoles: true });
    await server.handle.services.linkedRoles.ensure();
  };
  const connectionOf = (userId: string) => emulator().state.roleConnections.get(userId);
  /** A new member through the sign-in (rules confirmed) and the button, every queued call sent. */
  const verifyNewMember = async (username: string) => {
    const user = emulator().createUser({ username });
    await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    await drain();
    await click(user.id);
    await drain();
    return user;
  };
  /** The one role connection call a member's record had, sent and its sealed token erased. */
  const ONE_CALL_DONE = [{ status: 'done', attempts: 1, last_error: null, sealed: false }];
  /** A record gone: its connection cleared with the member's grant, then the grant revoked. */
  const expectClearedThenRevoked = async (userId: string) => {
    expect(connectionOf(userId)).toEqual({
      platform_name: 'Gatekeeper',
      platform_username: null,
      metadata: { verified: '0', not_alt: '0' },
    });
    expect(liveGrants(userId)).toEqual([]);
    // the sealed token the outbox held is erased once done
    expect(await connectionCalls(userId)).toEqual(ONE_CALL_DONE);
  };

  it('off: the verification sign-in asks for identify and guilds.join only, and keeps no grant', async () => {
    const user = emulator().createUser({ username: 'no-linked-roles' });
    const { authorize } = await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    expect(authorize.searchParams.get('scope')).toBe('identify guilds.join');
    await drain();
    expect(await grantOf(user.id)).toBeUndefined();
    expect(connectionOf(user.id)).toBeUndefined();
    // the joined member's token is revoked once used, as before
    await settle();
    expect(liveGrants(user.id)).toEqual([]);
  });

  it('on: the grant is kept sealed, the connection written after verification and updated by /unverify, certain alt and manual verification', async () => {
    await turnLinkedRolesOn();
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
    expect(connectionOf(user.id)).toEqual({
      platform_name: 'Gatekeeper',
      platform_username: 'linked-member',
      metadata: { verified: '0', not_alt: '1' },
    });

    // the rules confirmed make the member verified (the button then gives the role)
    await agent.post('/api/rules/confirm').expect(200);
    await drain();
    expect(connectionOf(user.id)!.metadata).toMatchObject({ verified: '1' });

    await click(user.id);
    await drain();
    const verified = connectionOf(user.id)!;
    expect(verified.metadata).toMatchObject({ verified: '1', not_alt: '1' });
    expect(Date.parse(verified.metadata.verified_since!)).toBeGreaterThan(Date.now() - 60_000);
    const role = emulator().createRole({ name: 'Gatekeeper verified' });
    emulator().setLinkedRole(role.id, [{ key: 'verified', value: 1 }]);
    expect(emulator().meetsLinkedRole(user.id, 'Gatekeeper verified')).toBe(true);

    await members().unverify(STAFF, user.id);
    await drain();
    expect(connectionOf(user.id)!.metadata).toEqual({ verified: '0', not_alt: '1' });
    expect(emulator().meetsLinkedRole(user.id, 'Gatekeeper verified')).toBe(false);

    await members().manualVerify(STAFF, user.id);
    await members().setAltStatus(STAFF, user.id, 'certain_alt');
    await drain();
    expect(connectionOf(user.id)!.metadata).toEqual({ verified: '0', not_alt: '0' });
    expect((await connectionCalls(user.id)).every((call) => call.status === 'done' && call.attempts === 1)).toBe(true);
  });

  it('renews a run-out access token with the refresh token (both rotate) and stores the new ones', async () => {
    const user = emulator().createUser({ username: 'linked-renew' });
    await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    await drain();
    const before = await grantOf(user.id);
    const [first] = liveGrants(user.id);
    await getDatabase().query(`update role_connection_grants set access_expires_at = now() - interval '1 minute' where discord_id = $1`, [
      user.id,
    ]);

    await click(user.id);
    await drain();
    expect(connectionOf(user.id)!.metadata).toMatchObject({ verified: '1' });
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
    const roles = emulator()
      .state.guild.members.get(user.id)!
      .roles.map((id) => emulator().state.guild.roles.get(id)?.name);
    expect(roles).toEqual(['Verified']);
    const calls = (await connectionCalls(user.id)).length;
    await members().unverify(STAFF, user.id);
    await drain();
    expect(await connectionCalls(user.id)).toHaveLength(calls);
  });

  it("a deletion clears the connection with the member's grant, then revokes it; the grant goes with the record", async () => {
    const user = await verifyNewMember('linked-deleted');
    expect(connectionOf(user.id)!.metadata).toMatchObject({ verified: '1' });

    // the dashboard's delete (the /privacy command's shares deleteMemberEverywhere)
    await members().remove({ id: 1, username: 'owner' }, user.id, 'dashboard');
    expect(await grantOf(user.id)).toBeUndefined();
    await drain();
    await expectClearedThenRevoked(user.id);
  });
  it("the /linked-roles sign-in keeps a member's grant, so /unverify then updates the connection; nobody's without a record", async () => {
    await server.handle.services.settings.update(OWNER, { linkedRoles: false });
    // verified before Linked Roles were turned on: no grant from the verification sign-in
    const user = await verifyNewMember('menu-member');
    expect(await grantOf(user.id)).toBeUndefined();

    await turnLinkedRolesOn();
    expect(await connectFromRoleMenu(user.id)).toBe('/linked-roles/done?result=verified');
    const grant = await grantOf(user.id);
    expect(grant!.sealed_refresh_token).toMatch(/^v1\./);
    await settle();
    // the sign-in's token is the kept grant: not revoked
    expect(liveGrants(user.id)).toHaveLength(1);
    expect(grant!.sealed_refresh_token).not.toContain(liveGrants(user.id)[0]!.token);
    const role = emulator().createRole({ name: 'Menu verified' });
    emulator().setLinkedRole(role.id, [{ key: 'verified', value: 1 }]);
    expect(emulator().meetsLinkedRole(user.id, 'Menu verified')).toBe(true);

    await members().unverify(STAFF, user.id);
    await drain();
    expect(connectionOf(user.id)!.metadata).toEqual({ verified: '0', not_alt: '1' });
    expect(emulator().meetsLinkedRole(user.id, 'Menu verified')).toBe(false);
    expect(await connectionCalls(user.id)).toEqual(ONE_CALL_DONE);

    // no record: the connection says so, nothing is kept and the token is revoked after its one write
    const stranger = emulator().createUser({ username: 'menu-stranger' });
    expect(await connectFromRoleMenu(stranger.id)).toBe('/linked-roles/done?result=not_verified');
    await settle();
    expect(await grantOf(stranger.id)).toBeUndefined();
    expect(liveGrants(stranger.id)).toEqual([]);
  });

  it("the retention purge clears a purged member's connection with their grant, then revokes it", async () => {
    await turnLinkedRolesOn();
    const user = await verifyNewMember('linked-expired');
    expect(connectionOf(user.id)!.metadata).toMatchObject({ verified: '1' });

    await getDatabase().query(`update members set last_seen_at = now() - interval '40 days' where discord_id = $1`, [user.id]);
    const counts = await purgeExpired({
      database: getDatabase(),
      clock: createManualClock(new Date()),
      retentionDays: 30,
      outbox: server.handle.services.outbox,
    });
    expect(counts.members).toBe(1);
    expect(await grantOf(user.id)).toBeUndefined();
    await drain();
    await expectClearedThenRevoked(user.id);
  });

  it("a verification that makes another member a certain alt updates that member's connection (not an alt: 0)", async () => {
    await turnLinkedRolesOn();
    const older = emulator().createUser({ username: 'linked-main' });
    const newer = emulator().createUser({ username: 'linked-alt' });
    // the older record first, on its own device; then the newer one verifies with the grant on another
    await walkVisitorFlow(server.handle, {
      userId: older.id,
      fingerprint: buildFingerprint('main-phone'),
      confirmRules: true,
      forwardedFor: '198.18.20.1',
    });
    const laptop = buildFingerprint('shared-laptop');
    const { browserToken } = await walkVisitorFlow(server.handle, {
      userId: newer.id,
      fingerprint: laptop,
      confirmRules: true,
      forwardedFor: '198.18.20.2',
    });
    await drain();
    await click(newer.id);
    await drain();
    expect(connectionOf(newer.id)!.metadata).toMatchObject({ verified: '1', not_alt: '1' });

    // the older account verifies again from the same browser: the newer one is its certain alt
    await walkVisitorFlow(server.handle, { userId: older.id, fingerprint: laptop, forwardedFor: '198.18.20.2', browserToken });
    const [link] = (
      await getDatabase().query<{ confidence: string }>(
        `select l.confidence from alt_links l join members a on a.id = l.alt_member_id join members m on m.id = l.main_member_id where a.discord_id = $1 and m.discord_id = $2`,
        [newer.id, older.id],
      )
    ).rows;
    expect(link?.confidence).toBe('certain');
    await drain();
    expect(connectionOf(newer.id)!.metadata).toEqual({ verified: '0', not_alt: '0' });
  });
});
