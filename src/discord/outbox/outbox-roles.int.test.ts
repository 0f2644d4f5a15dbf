import { createManualClock } from '../../clock';
import { discordOutbox } from '../../db/schema';
import { fallbackAuditLogReason, type DiscordAction, type OutboxEntry } from '../../modules/outbox';
import { emulatorOutboxWorker } from '../../test-support/emulator-guild';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createBotRest } from '../discord-rest';
import { createDiscordEmulator, type DiscordEmulator, type RateLimitOption } from '../../discord-emulator';
import { createGuildMemberCache, type GuildMemberCache } from '../guild-member-cache';

jest.setTimeout(90_000);

const REDIRECT = 'http://127.0.0.1/oauth/callback';
const REASON = 'Gatekeeper: verified by staff (alice)';

async function accessTokenFor(emulator: DiscordEmulator, userId: string): Promise<string> {
  const code = emulator.issueAuthorizationCode({
    userId,
    clientId: emulator.application.clientId,
    redirectUri: REDIRECT,
    scope: 'identify guilds.join',
  });
  const answer = await fetch(`${emulator.apiBase}/v10/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: emulator.application.clientId,
      client_secret: emulator.application.clientSecret,
    }),
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

describeEngines('Discord outbox: joins with roles, role changes one role at a time, no head-of-line blocking', (getDatabase) => {
  const clock = createManualClock(new Date());
  const sealKey = Buffer.alloc(32, 9);
  const emulators: DiscordEmulator[] = [];

  async function emulatorWith(rateLimits: RateLimitOption = true): Promise<DiscordEmulator> {
    const emulator = await createDiscordEmulator({ rateLimits });
    emulators.push(emulator);
    return emulator;
  }
  afterEach(async () => {
    for (const emulator of emulators.splice(0)) await emulator.close();
  });
  beforeEach(async () => resetDatabase(getDatabase()));

  function makeWorker(
    emulator: DiscordEmulator,
    options: { concurrency?: number; onFinished?: (entry: OutboxEntry, result: string) => void; members?: GuildMemberCache } = {},
  ) {
    const rest = createBotRest({ apiBase: emulator.apiBase, botToken: emulator.application.botToken, timeoutMs: 5000 });
    return emulatorOutboxWorker(emulator, { database: getDatabase(), rest, clock, sealKey, ...options });
  }
  const enqueueAll = async (outbox: ReturnType<typeof makeWorker>['outbox'], actions: DiscordAction[]) => {
    await getDatabase().db.transaction(async (tx) => {
      for (const action of actions) await outbox.enqueue(tx, action);
    });
  };
  const roleNames = (emulator: DiscordEmulator, userId: string) => [...emulator.state.memberRoleNames(userId)].sort();
  const memberCalls = (emulator: DiscordEmulator, from: number, userId: string) =>
    emulator.state.requestLog
      .slice(from)
      .filter((e) => e.token === 'bot' && e.route.startsWith('/guilds/:guildId/members/') && e.path.includes(userId))
      .map((e) => `${e.method} ${e.route.endsWith('/roles/:roleId') ? 'role' : 'member'} ${e.status}`);

  it('changes roles one role call each, gains first, and keeps roles someone else gave (roles unknown: every call)', async () => {
    const emulator = await emulatorWith();
    const { outbox, worker } = makeWorker(emulator);
    const user = emulator.createUser({ username: 'button-clicker' });
    emulator.addGuildMember(user.id, ['Unverified', 'Staff']);
    const settled = emulator.createUser({ username: 'already-right' });
    emulator.addGuildMember(settled.id, ['Verified']);
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [
      { kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified', 'limited'], reason: REASON },
      { kind: 'update_roles', discordId: settled.id, add: ['verified'], remove: ['unverified', 'limited'], reason: REASON },
    ]);
    await worker.drain();

    expect(roleNames(emulator, user.id)).toEqual(['Staff', 'Verified']);
    expect(roleNames(emulator, settled.id)).toEqual(['Verified']);
    // no read, no Modify Guild Member: Verified first, then each of ours taken (Discord answers 204 to a role not held)
    expect(memberCalls(emulator, before, user.id)).toEqual(['PUT role 204', 'DELETE role 204', 'DELETE role 204']);
    expect(memberCalls(emulator, before, settled.id)).toEqual(['PUT role 204', 'DELETE role 204', 'DELETE role 204']);
    const changes = emulator.state.auditLog.filter((e) => e.targetId === user.id);
    expect(changes.map((e) => [e.action, emulator.state.guild.roles.get(e.roleId ?? '')?.name, e.reason])).toEqual([
      ['member_role_add', 'Verified', REASON],
      ['member_role_remove', 'Unverified', REASON],
    ]);
    expect(await outbox.depth(getDatabase().db)).toEqual({ pending: 0, running: 0, failed: 0 });
  });

  it('joins a new member with its role in one call, and adds the role by a role call when the user was already in the guild', async () => {
    const emulator = await emulatorWith();
    const { outbox, worker } = makeWorker(emulator);
    const newcomer = emulator.createUser({ username: 'newcomer' });
    const member = emulator.createUser({ username: 'back-again' });
    emulator.addGuildMember(member.id, ['Limited Access']);
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [
      {
        kind: 'add_guild_member',
        discordId: newcomer.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, newcomer.id),
        reason: REASON,
      },
      {
        kind: 'add_guild_member',
        discordId: member.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, member.id),
        reason: REASON,
      },
    ]);
    await worker.drain();

    expect(roleNames(emulator, newcomer.id)).toEqual(['Unverified']);
    expect(roleNames(emulator, member.id)).toEqual(['Limited Access', 'Unverified']);
    const log = emulator.state.requestLog.slice(before).filter((e) => e.token === 'bot' && e.route.startsWith('/guilds/:guildId/members/'));
    expect(log.filter((e) => e.path.includes(newcomer.id)).map((e) => `${e.method} ${e.status}`)).toEqual(['PUT 201']);
    expect(
      log
        .filter((e) => e.path.includes(member.id))
        .map((e) => `${e.method} ${e.route.endsWith('/roles/:roleId') ? 'role' : 'member'} ${e.status}`),
    ).toEqual(['PUT member 204', 'PUT role 204']);
  });

  it('lifts a ban (an approved appeal), and an unban of a user who is not banned is done, not failed', async () => {
    const emulator = await emulatorWith();
    const { outbox, worker } = makeWorker(emulator);
    const banned = emulator.createUser({ username: 'banned-alt' });
    emulator.addGuildMember(banned.id, ['Unverified']);
    emulator.state.ban(banned.id, 'Gatekeeper: certain alternate account');
    const kicked = emulator.createUser({ username: 'kicked-alt' });
    await enqueueAll(outbox, [
      { kind: 'unban', discordId: banned.id, reason: 'Gatekeeper: appeal #1 approved' },
      { kind: 'unban', discordId: kicked.id, reason: 'Gatekeeper: appeal #2 approved' },
    ]);
    await worker.drain();

    expect(emulator.state.guild.bans.has(banned.id)).toBe(false);
    expect(await outbox.depth(getDatabase().db)).toEqual({ pending: 0, running: 0, failed: 0 });
  });

  it('known member: no Add Guild Member; a role they lack is one role call, a role they hold none', async () => {
    const emulator = await emulatorWith();
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const lacking = emulator.createUser({ username: 'from-the-panel' });
    emulator.addGuildMember(lacking.id, ['Staff']);
    const holding = emulator.createUser({ username: 'already-unverified' });
    emulator.addGuildMember(holding.id, ['Unverified']);
    // what the bot saw when they clicked the panel
    members.remember(lacking.id, [emulator.guild.roleId('Staff')]);
    members.remember(holding.id, [emulator.guild.roleId('Unverified')]);
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [
      {
        kind: 'add_guild_member',
        discordId: lacking.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, lacking.id),
        reason: REASON,
      },
      {
        kind: 'add_guild_member',
        discordId: holding.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, holding.id),
        reason: REASON,
      },
    ]);
    await worker.drain();

    expect(roleNames(emulator, lacking.id)).toEqual(['Staff', 'Unverified']);
    expect(roleNames(emulator, holding.id)).toEqual(['Unverified']);
    expect(memberCalls(emulator, before, lacking.id)).toEqual(['PUT role 204']);
    expect(memberCalls(emulator, before, holding.id)).toEqual([]);
    expect(members.roles(lacking.id)).toEqual([emulator.guild.roleId('Staff'), emulator.guild.roleId('Unverified')]);
    // the button's role change then makes only the calls that change something
    await enqueueAll(outbox, [
      { kind: 'update_roles', discordId: lacking.id, add: ['verified'], remove: ['unverified', 'limited'], reason: REASON },
    ]);
    await worker.drain();
    expect(roleNames(emulator, lacking.id)).toEqual(['Staff', 'Verified']);
    expect(memberCalls(emulator, before, lacking.id)).toEqual(['PUT role 204', 'PUT role 204', 'DELETE role 204']);
    expect(await outbox.depth(getDatabase().db)).toEqual({ pending: 0, running: 0, failed: 0 });
  });

  it('new member: joined with the roles in one call, whose answer spares the next role change its useless calls', async () => {
    const emulator = await emulatorWith();
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const newcomer = emulator.createUser({ username: 'newcomer-known-after' });
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [
      {
        kind: 'add_guild_member',
        discordId: newcomer.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, newcomer.id),
        reason: REASON,
      },
      { kind: 'update_roles', discordId: newcomer.id, add: ['limited'], remove: ['unverified'], reason: REASON },
      // nothing left to change: no call at all
      { kind: 'update_roles', discordId: newcomer.id, add: ['limited'], remove: ['unverified'], reason: REASON },
    ]);
    await worker.drain();
    expect(roleNames(emulator, newcomer.id)).toEqual(['Limited Access']);
    expect(memberCalls(emulator, before, newcomer.id)).toEqual(['PUT member 201', 'PUT role 204', 'DELETE role 204']);
  });

  it('answer 204 (in the guild, unknown to the bot): the roles follow by role calls, and nothing is assumed about the others', async () => {
    const emulator = await emulatorWith();
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const user = emulator.createUser({ username: 'came-by-invite' });
    emulator.addGuildMember(user.id, ['Staff']);
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [
      {
        kind: 'add_guild_member',
        discordId: user.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, user.id),
        reason: REASON,
      },
      { kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified'], reason: REASON },
    ]);
    await worker.drain();
    expect(roleNames(emulator, user.id)).toEqual(['Staff', 'Verified']);
    // the bot never saw their whole role list: every call of the role change is made, none reads or replaces the list
    expect(memberCalls(emulator, before, user.id)).toEqual(['PUT member 204', 'PUT role 204', 'PUT role 204', 'DELETE role 204']);
  });

  it('stale knowledge: a known member who left meets Unknown Member on the role call, and is joined with the roles', async () => {
    const emulator = await emulatorWith();
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const user = emulator.createUser({ username: 'left-meanwhile' });
    members.remember(user.id, []); // clicked the panel, then left the server
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [
      {
        kind: 'add_guild_member',
        discordId: user.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, user.id),
        reason: REASON,
      },
    ]);
    await worker.drain();
    expect(roleNames(emulator, user.id)).toEqual(['Unverified']);
    expect(memberCalls(emulator, before, user.id)).toEqual(['PUT role 404', 'PUT member 201']);
    expect(worker.stats).toMatchObject({ done: 1, failed: 0, retried: 0 });
    expect(members.roles(user.id)).toEqual([emulator.guild.roleId('Unverified')]);
  });

  it('known roles under tight limits: follows the rate-limit headers, no 429, every member right', async () => {
    const emulator = await emulatorWith({
      buckets: { 'member-edit': { limit: 2, windowMs: 1000 }, 'member-roles': { limit: 2, windowMs: 1000 } },
    });
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const users = Array.from({ length: 6 }, (_, i) => emulator.createUser({ username: `tight-${i}` }));
    const actions: DiscordAction[] = [];
    for (const user of users) {
      emulator.addGuildMember(user.id, []);
      members.remember(user.id, []);
      actions.push({
        kind: 'add_guild_member',
        discordId: user.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, user.id),
        reason: REASON,
      });
      actions.push({ kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified'], reason: REASON });
    }
    await enqueueAll(outbox, actions);
    await worker.drain();
    expect(users.map((user) => roleNames(emulator, user.id).join())).toEqual(users.map(() => 'Verified'));
    expect(emulator.state.requestLog.filter((e) => e.status === 429)).toEqual([]);
    const calls = users.flatMap((user) => memberCalls(emulator, 0, user.id));
    expect(calls.filter((c) => c === 'PUT role 204')).toHaveLength(12);
    expect(calls.filter((c) => c === 'DELETE role 204')).toHaveLength(6);
    expect(calls.filter((c) => c.startsWith('GET') || c.includes('member'))).toEqual([]);
  });

  it('keeps a role given by hand between two role changes, whatever the bot knew of the member', async () => {
    const emulator = await emulatorWith();
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const pronouns = emulator.createRole({ name: 'Pronouns: they/them' });
    const user = emulator.createUser({ username: 'given-by-hand' });
    emulator.addGuildMember(user.id, ['Unverified']);
    members.remember(user.id, [emulator.guild.roleId('Unverified')]); // seen at their button click
    await enqueueAll(outbox, [
      { kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified', 'limited'], reason: REASON },
    ]);
    await worker.drain();
    // a moderator gives a role; the bot (GUILDS intent only) never hears of it
    emulator.grantRole(user.id, pronouns.name);
    await enqueueAll(outbox, [
      {
        kind: 'update_roles',
        discordId: user.id,
        add: ['unverified'],
        remove: ['verified', 'limited'],
        reason: 'Gatekeeper: unverified by staff (bob)',
      },
    ]);
    await worker.drain();
    expect(roleNames(emulator, user.id)).toEqual(['Pronouns: they/them', 'Unverified']);
  });

  it("every change carries its reason into Discord's audit log; a change queued without one carries its kind's", async () => {
    const emulator = await emulatorWith();
    const { outbox, worker } = makeWorker(emulator);
    const newcomer = emulator.createUser({ username: 'reasoned-join' });
    const alt = emulator.createUser({ username: 'reasoned-alt' });
    emulator.addGuildMember(alt.id, ['Unverified']);
    const kicked = emulator.createUser({ username: 'reasoned-kick' });
    emulator.addGuildMember(kicked.id, ['Unverified']);
    const older = emulator.createUser({ username: 'queued-before-reasons' });
    emulator.addGuildMember(older.id, ['Unverified']);
    await enqueueAll(outbox, [
      {
        kind: 'add_guild_member',
        discordId: newcomer.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, newcomer.id),
        reason: 'Gatekeeper: signed in on the website to verify',
      },
      { kind: 'ban', discordId: alt.id, reason: 'Gatekeeper: certain alt of @main, denied at the button (ban)' },
      { kind: 'unban', discordId: alt.id, reason: 'Gatekeeper: appeal #3 approved by staff (alice) – ✓' },
      { kind: 'kick', discordId: kicked.id, reason: 'Gatekeeper: certain alt of @main, denied at the button (kick)' },
    ]);
    // a row written before changes carried their reason
    await getDatabase()
      .db.insert(discordOutbox)
      .values({
        kind: 'update_roles',
        discordId: older.id,
        payload: { add: ['verified'], remove: ['unverified'] },
        nextAttemptAt: new Date(clock.now().getTime() - 1000),
      });
    await worker.drain();

    const reasons = (userId: string) => emulator.state.auditLog.filter((e) => e.targetId === userId).map((e) => `${e.action}: ${e.reason}`);
    expect(reasons(newcomer.id)).toEqual(['member_add: Gatekeeper: signed in on the website to verify']);
    expect(reasons(alt.id)).toEqual([
      'member_ban: Gatekeeper: certain alt of @main, denied at the button (ban)',
      'member_unban: Gatekeeper: appeal #3 approved by staff (alice) – ✓',
    ]);
    expect(reasons(kicked.id)).toEqual(['member_kick: Gatekeeper: certain alt of @main, denied at the button (kick)']);
    expect(reasons(older.id)).toEqual([
      `member_role_add: ${fallbackAuditLogReason('update_roles')}`,
      `member_role_remove: ${fallbackAuditLogReason('update_roles')}`,
    ]);
    expect(roleNames(emulator, older.id)).toEqual(['Verified']);
  });

  it('keeps one member in order across a failure: the later action waits for the retry of the earlier one', async () => {
    const emulator = await emulatorWith();
    const { outbox, worker } = makeWorker(emulator);
    const user = emulator.createUser({ username: 'flip-flop' });
    emulator.addGuildMember(user.id, ['Unverified']);
    emulator.faults.set('error500', { routes: new RegExp(`/members/${user.id}/roles/`), count: 2 }); // the REST client retries once itself
    await enqueueAll(outbox, [
      { kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified'], reason: REASON },
      { kind: 'update_roles', discordId: user.id, add: ['unverified'], remove: ['verified'], reason: REASON },
    ]);
    await worker.drain();
    // the first failed and waits for its retry; the second was never handed out
    const queued = (await outbox.list(getDatabase().db)).sort((a, b) => a.id - b.id);
    expect(queued.map((e) => [e.status, e.attempts])).toEqual([
      ['pending', 1],
      ['pending', 0],
    ]);
    expect(roleNames(emulator, user.id)).toEqual(['Unverified']);

    clock.advance(60 * 60 * 1000);
    await worker.drain();
    expect(roleNames(emulator, user.id)).toEqual(['Unverified']);
    // Verified first, then back to Unverified: queue order
    const changes = emulator.state.auditLog
      .filter((e) => e.targetId === user.id)
      .map((e) => `${e.action} ${emulator.state.guild.roles.get(e.roleId ?? '')?.name}`);
    expect(changes).toEqual([
      'member_role_add Verified',
      'member_role_remove Unverified',
      'member_role_add Unverified',
      'member_role_remove Verified',
    ]);
    expect(await outbox.depth(getDatabase().db)).toEqual({ pending: 0, running: 0, failed: 0 });
  });

  it('does not let slow joins hold up role changes queued behind them', async () => {
    // joins two per 3 s: five of them need 6 s or more
    const emulator = await emulatorWith({ buckets: { 'member-add': { limit: 2, windowMs: 3000 } } });
    const finished = new Map<number, { kind: string; at: number }>();
    const { outbox, worker } = makeWorker(emulator, {
      concurrency: 2,
      onFinished: (entry) => finished.set(entry.id, { kind: entry.kind, at: Date.now() }),
    });
    const joiners = Array.from({ length: 5 }, (_, i) => emulator.createUser({ username: `slow-join-${i}` }));
    // two role calls each: four changes fit the role bucket's window (10 calls)
    const clickers = Array.from({ length: 4 }, (_, i) => emulator.createUser({ username: `clicker-${i}` }));
    for (const user of clickers) emulator.addGuildMember(user.id, ['Unverified']);
    const joins: DiscordAction[] = [];
    for (const user of joiners)
      joins.push({
        kind: 'add_guild_member',
        discordId: user.id,
        roles: ['unverified'],
        accessToken: await accessTokenFor(emulator, user.id),
        reason: REASON,
      });
    await enqueueAll(outbox, [
      ...joins,
      ...clickers.map((user): DiscordAction => ({
        kind: 'update_roles',
        discordId: user.id,
        add: ['verified'],
        remove: ['unverified'],
        reason: REASON,
      })),
    ]);

    worker.start();
    try {
      for (let waited = 0; finished.size < joins.length + clickers.length; waited += 100) {
        if (waited > 60_000) throw new Error(`only ${finished.size} actions finished`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await worker.stop();
    }
    const times = (kind: string) => [...finished.values()].filter((f) => f.kind === kind).map((f) => f.at);
    expect(Math.max(...times('update_roles'))).toBeLessThan(Math.max(...times('add_guild_member')) - 2500);
    expect(clickers.every((user) => roleNames(emulator, user.id).join() === 'Verified')).toBe(true);
    expect(joiners.every((user) => roleNames(emulator, user.id).join() === 'Unverified')).toBe(true);
    expect(emulator.state.requestLog.filter((e) => e.status === 429).map((e) => `${e.method} ${e.route} ${e.at}`)).toEqual([]);
  });
});
