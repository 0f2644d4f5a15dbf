import { createManualClock } from '../../clock';
import { explainGenericPlan, mostRowsInPlan } from '../../test-support/generic-plan';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { createOutboxRepository } from './outbox.repository';
import type { DiscordAction } from './outbox.types';

describeEngines('Outbox claims: order per member, room per kind, leases', (getDatabase) => {
  const clock = createManualClock(new Date('2026-01-01T00:00:00Z'));
  const outbox = createOutboxRepository({ sealKey: Buffer.alloc(32, 3), now: () => clock.now() });
  const enqueueAll = async (actions: DiscordAction[]) => {
    await getDatabase().db.transaction(async (tx) => {
      for (const action of actions) await outbox.enqueue(tx, action);
    });
  };
  const A = '100000000000000001';
  const B = '100000000000000002';

  beforeEach(async () => resetDatabase(getDatabase()));

  it("hands out only each member's first unfinished action; log lines never wait", async () => {
    await enqueueAll([
      { kind: 'update_roles', discordId: A, add: ['verified'], remove: ['unverified'], reason: 'Gatekeeper: test' },
      { kind: 'log_message', discordId: A, text: 'A verified' },
      { kind: 'kick', discordId: A, reason: 'test' },
      { kind: 'update_roles', discordId: B, add: ['limited'], remove: ['unverified'], reason: 'Gatekeeper: test' },
    ]);
    const db = getDatabase().db;
    const first = await outbox.claimDue(db, 10, 60_000);
    expect(first.map((e) => `${e.kind}:${e.discordId}`)).toEqual([`update_roles:${A}`, `log_message:${A}`, `update_roles:${B}`]);
    // A's kick waits while A's role change runs…
    expect(await outbox.claimDue(db, 10, 60_000)).toEqual([]);
    // …and while it waits for a retry
    await outbox.markFailed(db, first[0]!.id, '500', { retryAt: new Date(clock.now().getTime() + 5_000) });
    expect(await outbox.claimDue(db, 10, 60_000)).toEqual([]);
    clock.advance(5_000);
    expect((await outbox.claimDue(db, 10, 60_000)).map((e) => e.id)).toEqual([first[0]!.id]);
    await outbox.markDone(db, first[0]!.id);
    expect((await outbox.claimDue(db, 10, 60_000)).map((e) => e.kind)).toEqual(['kick']);
  });

  it('claims interactive actions before bulk ones of their kind, whatever their place in the queue', async () => {
    const bulk = Array.from({ length: 4 }, (_, i) => `2000000000000000${20 + i}`);
    await enqueueAll([
      ...bulk.map((id): DiscordAction => ({
        kind: 'update_roles',
        discordId: id,
        add: ['verified'],
        remove: ['unverified'],
        reason: 'Gatekeeper: test',
      })),
      { kind: 'log_message', discordId: B, text: 'B verified' },
    ]);
    await getDatabase().db.transaction((tx) =>
      outbox.enqueue(tx, {
        kind: 'update_roles',
        discordId: A,
        add: ['verified'],
        remove: ['unverified'],
        priority: 'interactive',
        reason: 'Gatekeeper: test',
      }),
    );
    const db = getDatabase().db;
    const first = await outbox.claimDue(db, { update_roles: 2, log_message: 1 }, 60_000);
    expect(first.map((e) => `${e.kind}:${e.discordId}`).sort()).toEqual(
      [`log_message:${B}`, `update_roles:${A}`, `update_roles:${bulk[0]}`].sort(),
    );
    // the rest in queue order
    expect((await outbox.claimDue(db, { update_roles: 10 }, 60_000)).map((e) => e.discordId)).toEqual(bulk.slice(1));
  });

  it("raises the member's earlier unfinished actions with an interactive one, and keeps their order", async () => {
    const raid = Array.from({ length: 5 }, (_, i) => `2000000000000000${30 + i}`);
    const join = (id: string): DiscordAction => ({
      kind: 'add_guild_member',
      discordId: id,
      roles: ['unverified'],
      accessToken: `token-${id}`,
      reason: 'Gatekeeper: test',
    });
    // the website queued A's join behind a raid's joins, then A clicks the button
    await enqueueAll([
      ...raid.slice(0, 3).map(join),
      join(A),
      { kind: 'log_message', discordId: A, text: 'A joined' },
      ...raid.slice(3).map(join),
    ]);
    await getDatabase().db.transaction((tx) =>
      outbox.enqueue(tx, {
        kind: 'update_roles',
        discordId: A,
        add: ['verified'],
        remove: ['unverified'],
        priority: 'interactive',
        reason: 'Gatekeeper: test',
      }),
    );
    const db = getDatabase().db;
    // A's join comes first; A's role change waits for it (order per member); the log line stays bulk
    const first = await outbox.claimDue(db, { add_guild_member: 1, update_roles: 10 }, 60_000);
    expect(first.map((e) => `${e.kind}:${e.discordId}`)).toEqual([`add_guild_member:${A}`]);
    expect((await outbox.list(db, { discordId: A })).map((e) => `${e.kind}:${e.priority}`)).toEqual([
      'update_roles:interactive',
      'log_message:bulk',
      'add_guild_member:interactive',
    ]);
    expect(await outbox.claimDue(db, { update_roles: 10 }, 60_000)).toEqual([]);
    await outbox.markDone(db, first[0]!.id);
    expect((await outbox.claimDue(db, { add_guild_member: 1, update_roles: 10 }, 60_000)).map((e) => `${e.kind}:${e.discordId}`)).toEqual([
      `add_guild_member:${raid[0]}`,
      `update_roles:${A}`,
    ]);
  });

  it('refuses an interactive action through enqueueQuery (it could not raise what the action waits for)', () => {
    expect(() =>
      outbox.enqueueQuery(getDatabase().db, {
        kind: 'update_roles',
        discordId: A,
        add: ['verified'],
        remove: [],
        priority: 'interactive',
        reason: 'Gatekeeper: test',
      }),
    ).toThrow(/enqueue/);
  });

  it('claims no more of a kind than the worker has room for, and skips kinds it has none for', async () => {
    const members = Array.from({ length: 6 }, (_, i) => `2000000000000000${10 + i}`);
    await enqueueAll([
      ...members.slice(0, 4).map((id): DiscordAction => ({
        kind: 'add_guild_member',
        discordId: id,
        roles: ['unverified'],
        accessToken: `token-${id}`,
        reason: 'Gatekeeper: test',
      })),
      ...members.slice(4).map((id): DiscordAction => ({
        kind: 'update_roles',
        discordId: id,
        add: ['verified'],
        remove: ['unverified'],
        reason: 'Gatekeeper: test',
      })),
    ]);
    const db = getDatabase().db;
    const claimed = await outbox.claimDue(db, { add_guild_member: 1, update_roles: 5 }, 60_000);
    expect(claimed.map((e) => e.kind)).toEqual(['add_guild_member', 'update_roles', 'update_roles']);
    expect(await outbox.claimDue(db, { add_guild_member: 0, update_roles: 5 }, 60_000)).toEqual([]);
    expect(await outbox.claimDue(db, {}, 60_000)).toEqual([]);
  });

  it("takes over an action whose worker died once its lease ends, still before the member's next one", async () => {
    await enqueueAll([
      { kind: 'update_roles', discordId: A, add: ['verified'], remove: ['unverified'], reason: 'Gatekeeper: test' },
      { kind: 'update_roles', discordId: A, add: ['unverified'], remove: ['verified'], reason: 'Gatekeeper: test' },
    ]);
    const db = getDatabase().db;
    const [lost] = await outbox.claimDue(db, 10, 60_000); // this worker dies here
    expect(await outbox.claimDue(db, 10, 60_000)).toEqual([]);
    clock.advance(60_001);
    const again = await outbox.claimDue(db, 10, 60_000);
    expect(again.map((e) => [e.id, e.attempts])).toEqual([[lost!.id, 2]]);
  });

  it('reads about as many actions as it claims: not the ones sent, nor those of kinds the worker has no room for', async () => {
    const db = getDatabase().db;
    // 3,000 sent, and 500 joins waiting for Discord's member bucket (a raid) while the worker has no room for joins
    await getDatabase().exec(`
      insert into discord_outbox (kind, discord_id, payload, status, next_attempt_at, completed_at, updated_at, created_at)
        select 'log_message', (300000000000000000 + g)::text, '{}', 'done', now(), now(), now(), now() from generate_series(1, 3000) g;
      insert into discord_outbox (kind, discord_id, payload, status, next_attempt_at, updated_at, created_at)
        select 'add_guild_member', (400000000000000000 + g)::text, '{}', 'pending', timestamptz '2025-12-31', now(), now() from generate_series(1, 500) g
    `);
    await getDatabase().exec('vacuum analyze discord_outbox');
    await enqueueAll([
      { kind: 'update_roles', discordId: A, add: ['verified'], remove: ['unverified'], reason: 'Gatekeeper: test' },
      { kind: 'log_message', discordId: A, text: 'A verified' },
    ]);
    const plan = await explainGenericPlan(
      getDatabase(),
      outbox.claimQuery(db, { add_guild_member: 0, update_roles: 5, log_message: 5 }, 60_000)!,
    );
    expect(plan).toMatch(/Update on discord_outbox .*rows=2 /);
    expect(plan).toMatch(/discord_outbox_claim_idx/);
    expect(plan).toMatch(/Index Cond: \(id = ANY/);
    // no step of the plan reads the sent actions or the waiting joins (a `rows=` over 100 would be a scan of them)
    expect(mostRowsInPlan(plan)).toBeLessThan(100);
  });
});
