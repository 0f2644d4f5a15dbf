import { createManualClock } from '../../clock';
import { silentLogger } from '../../logger';
import { createOutboxRepository } from '../../modules/outbox/outbox.repository';
import type { DiscordAction, OutboxEntry } from '../../modules/outbox/outbox.types';
import { emulatorGuildDirectory } from '../../test-support/emulator-guild';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { watchBuckets, type BucketWatch } from '../bucket-watch';
import { createBotRest } from '../discord-rest';
import { createDiscordEmulator, type DiscordEmulator, type RateLimitOption } from '../emulator';
import { createGuildMemberCache, type GuildMemberCache } from '../guild-member-cache';
import { createOutboxWorker } from './outbox-worker';

jest.setTimeout(90_000);

const REDIRECT = 'http://127.0.0.1/oauth/callback';

async function accessTokenFor(emulator: DiscordEmulator, userId: string): Promise<string> {
  const code = emulator.issueAuthorizationCode({ userId, clientId: emulator.application.clientId, redirectUri: REDIRECT, scope: 'identify guilds.join' });
  const answer = await fetch(`${emulator.apiBase}/v10/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: emulator.application.clientId, client_secret: emulator.application.clientSecret }),
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

describeEngines('Discord outbox: joins with roles, one call per role change, no head-of-line blocking', (getDatabase) => {
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
    options: { concurrency?: number; onFinished?: (entry: OutboxEntry, result: string) => void; members?: GuildMemberCache; watchBuckets?: boolean; buckets?: BucketWatch } = {},
  ) {
    const outbox = createOutboxRepository({ sealKey, now: () => clock.now() });
    const rest = createBotRest({ apiBase: emulator.apiBase, botToken: emulator.application.botToken, timeoutMs: 5000 });
    const directory = emulatorGuildDirectory(rest, emulator);
    const { watchBuckets: watch, ...others } = options;
    const worker = createOutboxWorker({ database: getDatabase(), outbox, rest, directory, sealKey, clock, logger: silentLogger, pollMs: 50, buckets: watch ? watchBuckets(rest) : undefined, ...others });
    return { outbox, worker };
  }
  const enqueueAll = async (outbox: ReturnType<typeof makeWorker>['outbox'], actions: DiscordAction[]) => {
    await getDatabase().db.transaction(async (tx) => {
      for (const action of actions) await outbox.enqueue(tx, action);
    });
  };
  const roleNames = (emulator: DiscordEmulator, userId: string) => [...emulator.state.memberRoleNames(userId)].sort();

  it('changes roles with one Modify Guild Member call and keeps roles someone else gave (roles unknown: read first)', async () => {
    const emulator = await emulatorWith();
    const { outbox, worker } = makeWorker(emulator);
    const user = emulator.createUser({ username: 'button-clicker' });
    emulator.addGuildMember(user.id, ['Unverified', 'Staff']);
    const settled = emulator.createUser({ username: 'already-right' });
    emulator.addGuildMember(settled.id, ['Verified']);
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [
      { kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified', 'limited'] },
      { kind: 'update_roles', discordId: settled.id, add: ['verified'], remove: ['unverified', 'limited'] },
    ]);
    await worker.drain();

    expect(roleNames(emulator, user.id)).toEqual(['Staff', 'Verified']);
    expect(roleNames(emulator, settled.id)).toEqual(['Verified']);
    const calls = emulator.state.requestLog.slice(before).filter((e) => e.route.startsWith('/guilds/:guildId/members/'));
    expect(calls.filter((e) => e.path.endsWith(user.id)).map((e) => `${e.method} ${e.status}`)).toEqual(['GET 200', 'PATCH 200']);
    // nothing to change: read, no write
    expect(calls.filter((e) => e.path.endsWith(settled.id)).map((e) => e.method)).toEqual(['GET']);
    expect(calls.filter((e) => e.route.endsWith('/roles/:roleId'))).toHaveLength(0);
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
      { kind: 'add_guild_member', discordId: newcomer.id, roles: ['unverified'], accessToken: await accessTokenFor(emulator, newcomer.id) },
      { kind: 'add_guild_member', discordId: member.id, roles: ['unverified'], accessToken: await accessTokenFor(emulator, member.id) },
    ]);
    await worker.drain();

    expect(roleNames(emulator, newcomer.id)).toEqual(['Unverified']);
    expect(roleNames(emulator, member.id)).toEqual(['Limited Access', 'Unverified']);
    const log = emulator.state.requestLog.slice(before).filter((e) => e.token === 'bot' && e.route.startsWith('/guilds/:guildId/members/'));
    expect(log.filter((e) => e.path.includes(newcomer.id)).map((e) => `${e.method} ${e.status}`)).toEqual(['PUT 201']);
    expect(log.filter((e) => e.path.includes(member.id)).map((e) => `${e.method} ${e.route.endsWith('/roles/:roleId') ? 'role' : 'member'} ${e.status}`)).toEqual([
      'PUT member 204',
      'PUT role 204',
    ]);
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

  const memberCalls = (emulator: DiscordEmulator, from: number, userId: string) =>
    emulator.state.requestLog
      .slice(from)
      .filter((e) => e.token === 'bot' && e.route.startsWith('/guilds/:guildId/members/') && e.path.includes(userId))
      .map((e) => `${e.method} ${e.route.endsWith('/roles/:roleId') ? 'role' : 'member'} ${e.status}`);

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
      { kind: 'add_guild_member', discordId: lacking.id, roles: ['unverified'], accessToken: await accessTokenFor(emulator, lacking.id) },
      { kind: 'add_guild_member', discordId: holding.id, roles: ['unverified'], accessToken: await accessTokenFor(emulator, holding.id) },
    ]);
    await worker.drain();

    expect(roleNames(emulator, lacking.id)).toEqual(['Staff', 'Unverified']);
    expect(roleNames(emulator, holding.id)).toEqual(['Unverified']);
    expect(memberCalls(emulator, before, lacking.id)).toEqual(['PUT role 204']);
    expect(memberCalls(emulator, before, holding.id)).toEqual([]);
    expect(members.roles(lacking.id)).toEqual([emulator.guild.roleId('Staff'), emulator.guild.roleId('Unverified')]);
    // the button's role change then needs no read
    await enqueueAll(outbox, [{ kind: 'update_roles', discordId: lacking.id, add: ['verified'], remove: ['unverified', 'limited'] }]);
    await worker.drain();
    expect(roleNames(emulator, lacking.id)).toEqual(['Staff', 'Verified']);
    expect(memberCalls(emulator, before, lacking.id)).toEqual(['PUT role 204', 'PATCH member 200']);
    expect(await outbox.depth(getDatabase().db)).toEqual({ pending: 0, running: 0, failed: 0 });
  });

  it('new member: joined with the roles in one call, whose answer makes the next role change a single write', async () => {
    const emulator = await emulatorWith();
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const newcomer = emulator.createUser({ username: 'newcomer-known-after' });
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [
      { kind: 'add_guild_member', discordId: newcomer.id, roles: ['unverified'], accessToken: await accessTokenFor(emulator, newcomer.id) },
      { kind: 'update_roles', discordId: newcomer.id, add: ['limited'], remove: ['unverified'] },
      // nothing left to change: no call at all
      { kind: 'update_roles', discordId: newcomer.id, add: ['limited'], remove: ['unverified'] },
    ]);
    await worker.drain();
    expect(roleNames(emulator, newcomer.id)).toEqual(['Limited Access']);
    expect(memberCalls(emulator, before, newcomer.id)).toEqual(['PUT member 201', 'PATCH member 200']);
  });

  it('answer 204 (in the guild, unknown to the bot): the roles follow by role calls, and nothing is assumed about the others', async () => {
    const emulator = await emulatorWith();
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const user = emulator.createUser({ username: 'came-by-invite' });
    emulator.addGuildMember(user.id, ['Staff']);
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [
      { kind: 'add_guild_member', discordId: user.id, roles: ['unverified'], accessToken: await accessTokenFor(emulator, user.id) },
      { kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified'] },
    ]);
    await worker.drain();
    expect(roleNames(emulator, user.id)).toEqual(['Staff', 'Verified']);
    // the role change reads the member first: the bot never saw their whole role list
    expect(memberCalls(emulator, before, user.id)).toEqual(['PUT member 204', 'PUT role 204', 'GET member 200', 'PATCH member 200']);
  });

  it('stale knowledge: a known member who left meets Unknown Member on the role call, and is joined with the roles', async () => {
    const emulator = await emulatorWith();
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const user = emulator.createUser({ username: 'left-meanwhile' });
    members.remember(user.id, []); // clicked the panel, then left the server
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [{ kind: 'add_guild_member', discordId: user.id, roles: ['unverified'], accessToken: await accessTokenFor(emulator, user.id) }]);
    await worker.drain();
    expect(roleNames(emulator, user.id)).toEqual(['Unverified']);
    expect(memberCalls(emulator, before, user.id)).toEqual(['PUT role 404', 'PUT member 201']);
    expect(worker.stats).toMatchObject({ done: 1, failed: 0, retried: 0 });
    expect(members.roles(user.id)).toEqual([emulator.guild.roleId('Unverified')]);
  });

  it('known roles under tight limits: follows the rate-limit headers, no 429, every member right', async () => {
    const emulator = await emulatorWith({ buckets: { 'member-edit': { limit: 2, windowMs: 1000 }, 'member-roles': { limit: 2, windowMs: 1000 } } });
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members });
    const users = Array.from({ length: 6 }, (_, i) => emulator.createUser({ username: `tight-${i}` }));
    const actions: DiscordAction[] = [];
    for (const user of users) {
      emulator.addGuildMember(user.id, []);
      members.remember(user.id, []);
      actions.push({ kind: 'add_guild_member', discordId: user.id, roles: ['unverified'], accessToken: await accessTokenFor(emulator, user.id) });
      actions.push({ kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified'] });
    }
    await enqueueAll(outbox, actions);
    await worker.drain();
    expect(users.map((user) => roleNames(emulator, user.id).join())).toEqual(users.map(() => 'Verified'));
    expect(emulator.state.requestLog.filter((e) => e.status === 429)).toEqual([]);
    const calls = users.flatMap((user) => memberCalls(emulator, 0, user.id));
    expect(calls.filter((c) => c === 'PUT role 204')).toHaveLength(6);
    expect(calls.filter((c) => c === 'PATCH member 200')).toHaveLength(6);
    expect(calls.filter((c) => c.startsWith('GET') || c.startsWith('PUT member'))).toEqual([]);
  });

  it('spreads known role changes over Modify Guild Member and the role routes when the first bucket is spent: right roles, no 429', async () => {
    const emulator = await emulatorWith({ buckets: { 'member-edit': { limit: 2, windowMs: 1500 }, 'member-roles': { limit: 4, windowMs: 1500 } } });
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members, watchBuckets: true });
    const users = Array.from({ length: 12 }, (_, i) => emulator.createUser({ username: `spread-${i}` }));
    for (const user of users) {
      emulator.addGuildMember(user.id, ['Unverified', 'Staff']);
      members.remember(user.id, [emulator.guild.roleId('Unverified'), emulator.guild.roleId('Staff')]);
    }
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, users.map((user): DiscordAction => ({ kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified', 'limited'] })));
    await worker.drain();

    expect(users.map((user) => roleNames(emulator, user.id).join())).toEqual(users.map(() => 'Staff,Verified'));
    expect(emulator.state.requestLog.filter((e) => e.status === 429)).toEqual([]);
    // each member's change went one way or the other, never both, never with a read
    const ways = users.map((user) => memberCalls(emulator, before, user.id).join());
    expect(ways.every((w) => w === 'PATCH member 200' || w === 'PUT role 204,DELETE role 204')).toBe(true);
    expect(ways.filter((w) => w.startsWith('PUT role')).length).toBeGreaterThan(0);
    expect(ways.filter((w) => w.startsWith('PATCH')).length).toBeGreaterThan(0);
    // the cache holds what Discord now holds
    for (const user of users) expect([...(members.roles(user.id) ?? [])].sort()).toEqual([emulator.guild.roleId('Staff'), emulator.guild.roleId('Verified')].sort());
  });

  it('counts both calls of a role-by-role change from the moment it is chosen: at most half the role bucket in changes at once', async () => {
    const emulator = await emulatorWith({ buckets: { 'member-edit': { limit: 2, windowMs: 1500 }, 'member-roles': { limit: 4, windowMs: 1500 } } });
    const members = createGuildMemberCache();
    const { outbox, worker } = makeWorker(emulator, { members, watchBuckets: true });
    const verify = (user: { id: string }): DiscordAction => ({ kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified'] });
    const inGuild = (count: number, name: string) =>
      Array.from({ length: count }, (_, i) => {
        const user = emulator.createUser({ username: `${name}-${i}` });
        emulator.addGuildMember(user.id, ['Unverified']);
        members.remember(user.id, [emulator.guild.roleId('Unverified')]);
        return user;
      });
    // a first few changes teach the watch both buckets (the role routes' by one probing change)
    const first = inGuild(3, 'learn');
    await enqueueAll(outbox, first.map(verify));
    await worker.drain();
    await new Promise((resolve) => setTimeout(resolve, 1600)); // both windows over: the backlog meets fresh buckets
    const users = inGuild(12, 'paired');
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, users.map(verify));
    await worker.drain();

    expect([...first, ...users].map((user) => roleNames(emulator, user.id).join())).toEqual([...first, ...users].map(() => 'Verified'));
    expect(emulator.state.requestLog.filter((e) => e.status === 429)).toEqual([]);
    // changes whose first role call was answered and whose second was not yet: never more than the
    // role bucket has room for both calls of (4 / 2). Counted call by call, the changes chosen while
    // the first calls were out took the whole bucket with first calls, and their second calls
    // waited a window with the worker's slots held (Modify Guild Member idle meanwhile)
    const userOf = (path: string) => users.find((user) => path.includes(`/members/${user.id}/`))?.id;
    const open = new Set<string>();
    let most = 0;
    for (const entry of emulator.state.requestLog.slice(before).filter((e) => e.route.endsWith('/roles/:roleId'))) {
      const user = userOf(entry.path)!;
      if (entry.method === 'PUT') open.add(user);
      else open.delete(user);
      most = Math.max(most, open.size);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(2);
  });

  it('goes role by role only when the role bucket has room for the whole change now, never queued for a later window', async () => {
    const emulator = await emulatorWith(false);
    const members = createGuildMemberCache();
    // what the watch would say in a raid's backlog: Modify Guild Member's bucket free in a second,
    // the role bucket sooner, but not now
    const later: BucketWatch = {
      readyAt: (requests, now = Date.now()) => now + (requests.some((r) => r.method === 'PATCH') ? 1000 : 500),
      begin: () => () => undefined,
      outstanding: () => 0,
    };
    const { outbox, worker } = makeWorker(emulator, { members, buckets: later });
    const user = emulator.createUser({ username: 'not-now' });
    emulator.addGuildMember(user.id, ['Unverified']);
    members.remember(user.id, [emulator.guild.roleId('Unverified')]);
    const before = emulator.state.requestLog.length;
    await enqueueAll(outbox, [{ kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified'] }]);
    await worker.drain();
    // a change queued for a later window would put its first call in the REST client's queue ahead of the
    // second calls of the changes already under way (P4: windows of first calls, second calls a window late)
    expect(memberCalls(emulator, before, user.id)).toEqual(['PATCH member 200']);
    expect(roleNames(emulator, user.id)).toEqual(['Verified']);
  });

  it('keeps one member in order across a failure: the later action waits for the retry of the earlier one', async () => {
    const emulator = await emulatorWith();
    const { outbox, worker } = makeWorker(emulator);
    const user = emulator.createUser({ username: 'flip-flop' });
    emulator.addGuildMember(user.id, ['Unverified']);
    emulator.faults.set('error500', { routes: new RegExp(`/members/${user.id}$`), count: 2 }); // the REST client retries once itself
    await enqueueAll(outbox, [
      { kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified'] },
      { kind: 'update_roles', discordId: user.id, add: ['unverified'], remove: ['verified'] },
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
    const patches = emulator.state.auditLog.filter((e) => e.action === 'member_update' && e.targetId === user.id);
    expect(patches).toHaveLength(2); // Verified first, then back to Unverified: queue order
    expect(await outbox.depth(getDatabase().db)).toEqual({ pending: 0, running: 0, failed: 0 });
  });

  it('does not let slow joins hold up role changes queued behind them', async () => {
    // joins two per 3 s: five of them need 6 s or more
    const emulator = await emulatorWith({ buckets: { 'member-add': { limit: 2, windowMs: 3000 } } });
    const finished = new Map<number, { kind: string; at: number }>();
    const { outbox, worker } = makeWorker(emulator, { concurrency: 2, onFinished: (entry) => finished.set(entry.id, { kind: entry.kind, at: Date.now() }) });
    const joiners = Array.from({ length: 5 }, (_, i) => emulator.createUser({ username: `slow-join-${i}` }));
    const clickers = Array.from({ length: 8 }, (_, i) => emulator.createUser({ username: `clicker-${i}` }));
    for (const user of clickers) emulator.addGuildMember(user.id, ['Unverified']);
    const joins: DiscordAction[] = [];
    for (const user of joiners) joins.push({ kind: 'add_guild_member', discordId: user.id, roles: ['unverified'], accessToken: await accessTokenFor(emulator, user.id) });
    await enqueueAll(outbox, [...joins, ...clickers.map((user): DiscordAction => ({ kind: 'update_roles', discordId: user.id, add: ['verified'], remove: ['unverified'] }))]);

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
