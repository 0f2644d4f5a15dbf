import request from 'supertest';
import { describeOnPgliteOnly } from '../../test-support/database';
import { useTestGatekeeper, walkVisitorFlow } from '../../test-support/gatekeeper';

jest.setTimeout(60_000);

/**
 * Visitors' OAuth tokens live no longer than their use: the verification's is revoked at Discord as
 * soon as the member is added to the server (or found there), its sealed copy erased; the appeal
 * sign-in asks for `identify` only and its token is revoked once read. A revocation that fails
 * never fails the join.
 */
describeOnPgliteOnly('OAuth tokens: least scopes, revoked after use', (getDatabase) => {
  const server = useTestGatekeeper(getDatabase);
  const emulator = () => server.handle.discord.emulator!;
  afterEach(() => emulator().faults.set('none'));

  /** The user's live access tokens at Discord (the emulator's store). */
  const liveTokens = (userId: string) => [...emulator().state.oauth.accessTokens.values()].filter((t) => t.userId === userId).length;
  /** Waits for the background revocation: the user's tokens gone, or the count after 5 s. */
  async function tokensOnceSettled(userId: string): Promise<number> {
    for (let i = 0; i < 100 && liveTokens(userId) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    return liveTokens(userId);
  }
  const joinRows = (discordId: string) =>
    getDatabase().query<{ status: string; has_secret: boolean }>(
      "select status, sealed_secret is not null as has_secret from discord_outbox where kind = 'add_guild_member' and discord_id = $1",
      [discordId],
    );

  it('revokes the access token once the member is added, and erases its sealed copy', async () => {
    const user = emulator().createUser({ username: 'joined-then-revoked' });
    const { landedOn } = await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    expect(landedOn).toBe('/rules');
    expect(liveTokens(user.id)).toBe(1);
    await server.handle.services.outboxWorker.drain();
    expect(emulator().state.guild.members.has(user.id)).toBe(true);
    expect(await tokensOnceSettled(user.id)).toBe(0);
    expect((await joinRows(user.id)).rows).toEqual([{ status: 'done', has_secret: false }]);
    expect(emulator().state.requestLog.filter((r) => r.route === '/oauth2/token/revoke' && r.status === 200).length).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('revokes the token it never needed when the member is in the server already', async () => {
    const user = emulator().createUser({ username: 'already-there' });
    emulator().addGuildMember(user.id);
    await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    await server.handle.services.outboxWorker.drain();
    expect(await tokensOnceSettled(user.id)).toBe(0);
    expect((await joinRows(user.id)).rows).toEqual([{ status: 'done', has_secret: false }]);
  });

  it('still records the join done when Discord fails the revocation', async () => {
    const user = emulator().createUser({ username: 'revocation-fails' });
    await walkVisitorFlow(server.handle, { userId: user.id, confirmRules: true });
    emulator().faults.set('error500', { routes: /\/oauth2\/token\/revoke$/ });
    await server.handle.services.outboxWorker.drain();
    expect(emulator().state.guild.members.has(user.id)).toBe(true);
    expect((await joinRows(user.id)).rows).toEqual([{ status: 'done', has_secret: false }]);
    // the revocation was tried (twice: a 5xx is retried once) and given up; the token then expires on its own
    for (let i = 0; i < 100 && emulator().faults.injected.error500 < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(emulator().faults.injected.error500).toBe(2);
    expect(liveTokens(user.id)).toBe(1);
  });

  it('asks for identify only on the appeal sign-in, and revokes its token once the identity is read', async () => {
    const user = emulator().createUser({ username: 'appellant' });
    const agent = request.agent(server.handle.url);
    const start = await agent.get('/oauth/appeal').expect(303);
    const authorize = new URL(start.headers.location as string);
    expect(authorize.searchParams.get('scope')).toBe('identify');
    const { code, state } = emulator().authorizeAs(user.id, authorize);
    const callback = await agent.get('/oauth/callback').query({ code, state }).expect(303);
    expect(callback.headers.location).toBe('/appeal');
    expect(await tokensOnceSettled(user.id)).toBe(0);
    expect(emulator().state.guild.members.has(user.id)).toBe(false);

    // the verification sign-in still asks for both
    const visitor = await walkVisitorFlow(server.handle, { userId: emulator().createUser({ username: 'verifier' }).id });
    expect(visitor.authorize.searchParams.get('scope')).toBe('identify guilds.join');
  });
});
