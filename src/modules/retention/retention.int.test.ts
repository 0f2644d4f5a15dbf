import { eq } from 'drizzle-orm';
import { createManualClock } from '../../clock';
import { members, sharedNetworks, signInCallbacks, vpnCache } from '../../db/schema';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildAttempt, buildLink, buildMember, buildNote } from '../../test-support/factories';
import { listAudit } from '../audit';
import { createOutboxRepository } from '../outbox';
import { purgeExpired } from './retention.service';

const DAY = 24 * 60 * 60 * 1000;

describeEngines('retention purge', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  it('deletes members, attempts, links and notes past retention and keeps the rest', async () => {
    const database = getDatabase();
    const { db } = database;
    const clock = createManualClock(new Date('2026-06-01T00:00:00Z'));
    const old = new Date(clock.now().getTime() - 31 * DAY);
    const recent = new Date(clock.now().getTime() - 2 * DAY);

    const gone = await buildMember(db, { lastSeenAt: old, verifiedAt: old, altsFound: 1 });
    const kept = await buildMember(db, { lastSeenAt: recent, altsFound: 1 });
    // the browser token's hash lives on the attempt: it expires with it
    await buildAttempt(db, gone.id, { createdAt: old, browserTokenHash: 'token-of-gone' });
    await buildAttempt(db, kept.id, { createdAt: old, browserTokenHash: 'old-token-of-kept' }); // an old attempt of an active member
    await buildAttempt(db, kept.id, { createdAt: recent, browserTokenHash: 'token-of-kept' });
    await buildLink(db, gone.id, kept.id, { updatedAt: old });
    await buildNote(db, gone.id, 'old member note', { createdAt: old });
    await buildNote(db, kept.id, 'old note', { createdAt: old });
    await buildNote(db, kept.id, 'fresh note', { createdAt: recent });
    await db
      .insert(vpnCache)
      .values({ ipHash: 'h', verdict: 'clean', source: 'proxycheck', expiresAt: new Date(clock.now().getTime() - 1000) });
    await db.insert(sharedNetworks).values([
      { networkHash: 'orphan', createdAt: old },
      { networkHash: 'still-used', createdAt: old },
    ]);
    await db.update(members).set({ networkHash: 'still-used' }).where(eq(members.id, kept.id));

    const counts = await purgeExpired({ database, clock, retentionDays: 30 });
    expect(counts).toMatchObject({ members: 1, attempts: 2, links: 1, notes: 2, vpnCache: 1, sharedNetworks: 1 });
    expect((await db.select().from(sharedNetworks)).map((n) => n.networkHash)).toEqual(['still-used']);

    const remaining = await db.select().from(members);
    expect(remaining.map((m) => m.id)).toEqual([kept.id]);
    expect(remaining[0]!.altsFound).toBe(0); // its only link went with the purged member
    const { rows } = await database.query<{ n: number }>('select count(*)::int as n from verification_attempts');
    expect(rows[0]!.n).toBe(1);
    const tokens = await database.query<{ browser_token_hash: string | null }>('select browser_token_hash from verification_attempts');
    expect(tokens.rows.map((r) => r.browser_token_hash)).toEqual(['token-of-kept']);
    const notes = await database.query<{ note: string }>('select note from admin_notes');
    expect(notes.rows.map((r) => r.note)).toEqual(['fresh note']);

    const audit = await listAudit(db, { action: 'retention.purge' });
    expect(audit.entries[0]?.details).toMatchObject({ members: 1, retentionDays: 30 });
    expect(JSON.stringify(audit.entries[0])).not.toContain(gone.discordId); // counts only
  });

  it("deletes appeals with their member, and decided appeals past retention; an active member's open appeal stays", async () => {
    const database = getDatabase();
    const { db } = database;
    const clock = createManualClock(new Date('2026-06-01T00:00:00Z'));
    const old = new Date(clock.now().getTime() - 31 * DAY);
    const recent = new Date(clock.now().getTime() - 2 * DAY);
    const gone = await buildMember(db, { lastSeenAt: old, status: 'limited_access' });
    const kept = await buildMember(db, { lastSeenAt: recent, status: 'limited_access' });
    await database.query(
      `insert into appeals (member_id, message, standing, status, created_at, decided_at, decision_reason) values
        ($1, 'gone member', 'limited', 'open', $3, null, null),
        ($2, 'old decided', 'limited', 'rejected', $3, $3, 'no'),
        ($2, 'old but open', 'limited', 'open', $3, null, null),
        ($2, 'recently decided', 'limited', 'approved', $3, $4, null)`,
      [gone.id, kept.id, old, recent],
    );
    const counts = await purgeExpired({ database, clock, retentionDays: 30 });
    expect(counts).toMatchObject({ members: 1, appeals: 2 });
    const { rows } = await database.query<{ message: string }>('select message from appeals order by id');
    expect(rows.map((r) => r.message)).toEqual(['old but open', 'recently decided']);
  });

  it('follows the configured period and the clock', async () => {
    const database = getDatabase();
    const clock = createManualClock(new Date('2026-06-01T00:00:00Z'));
    const member = await buildMember(database.db, { lastSeenAt: clock.now() });
    expect((await purgeExpired({ database, clock, retentionDays: 7 })).members).toBe(0);
    clock.advance(7 * DAY + 1000);
    expect((await purgeExpired({ database, clock, retentionDays: 7 })).members).toBe(1);
    expect(await database.db.select().from(members).where(eq(members.id, member.id))).toHaveLength(0);
  });

  it("deletes sign-in callbacks' outcomes once their 10 minutes are over, and keeps the live ones", async () => {
    const database = getDatabase();
    const clock = createManualClock(new Date('2026-06-01T00:00:00Z'));
    const at = (ms: number) => new Date(clock.now().getTime() + ms);
    await database.db.insert(signInCallbacks).values([
      {
        stateHash: 'a'.repeat(64),
        callbackHash: 'b'.repeat(64),
        kind: 'visitor',
        outcome: { kind: 'verified', discordId: '1' },
        runningUntil: at(-60_000),
        expiresAt: at(-1),
      },
      { stateHash: 'c'.repeat(64), callbackHash: 'd'.repeat(64), kind: 'appeal', runningUntil: at(30_000), expiresAt: at(60_000) },
    ]);
    expect((await purgeExpired({ database, clock, retentionDays: 30 })).signInCallbacks).toBe(1);
    expect((await database.db.select({ stateHash: signInCallbacks.stateHash }).from(signInCallbacks)).map((r) => r.stateHash)).toEqual([
      'c'.repeat(64),
    ]);
  });

  it('writes no audit row when there was nothing to purge', async () => {
    const database = getDatabase();
    await purgeExpired({ database, clock: createManualClock(), retentionDays: 30 });
    expect((await listAudit(database.db, {})).entries).toHaveLength(0);
  });

  it('deletes an expired member the way every member deletion does, outbox rows included', async () => {
    const database = getDatabase();
    const { db } = database;
    const clock = createManualClock(new Date('2026-06-01T00:00:00Z'));
    const gone = await buildMember(db, { lastSeenAt: new Date(clock.now().getTime() - 31 * DAY) });
    const outbox = createOutboxRepository({ sealKey: Buffer.alloc(32, 7), now: () => clock.now() });
    await outbox.enqueue(db, {
      kind: 'add_guild_member',
      discordId: gone.discordId,
      roles: ['unverified'],
      accessToken: 'token',
      reason: 'Gatekeeper: test',
    });
    await outbox.enqueue(db, { kind: 'log_message', event: 'verified', discordId: gone.discordId, text: `<@${gone.discordId}> verified` });
    await outbox.enqueue(db, {
      kind: 'update_roles',
      discordId: gone.discordId,
      add: ['unverified'],
      remove: ['verified'],
      reason: 'Gatekeeper: test',
    });

    const counts = await purgeExpired({ database, clock, retentionDays: 30 });
    expect(counts).toMatchObject({ members: 1, outbox: 2 });
    const left = await database.query<{ kind: string }>('select kind from discord_outbox');
    expect(left.rows).toEqual([{ kind: 'update_roles' }]);
  });
});
