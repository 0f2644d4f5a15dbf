import { buildAttempt, buildLink, buildMember, buildNote } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { verifyAuditChain } from '../audit';
import { createOutboxRepository } from '../outbox';
import { deleteMemberEverywhere } from './member-delete';

const actor = { type: 'staff' as const, id: '9', name: 'Mod' };

describeEngines('deleteMemberEverywhere', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  async function scenario() {
    const { db } = getDatabase();
    const main = await buildMember(db, { discordId: '800000000000000001', username: 'main', altsFound: 2 });
    const alt = await buildMember(db, { discordId: '800000000000000002', username: 'alt', altsFound: 2, isLinkedAsAlt: true });
    const other = await buildMember(db, { discordId: '800000000000000003', username: 'other', altsFound: 1 });
    const loner = await buildMember(db, { discordId: '800000000000000004', username: 'loner' });
    await buildLink(db, main.id, alt.id, { confidence: 'certain' });
    await buildLink(db, main.id, other.id, { confidence: 'possible', detectionMethod: 'ip' });
    await buildLink(db, other.id, alt.id, { confidence: 'medium', detectionMethod: 'fingerprint' });
    await buildAttempt(db, main.id);
    await buildAttempt(db, main.id);
    await buildAttempt(db, alt.id);
    await buildNote(db, main.id, 'first');
    await buildNote(db, main.id, 'second');
    return { main, alt, other, loner };
  }

  const counters = async () =>
    (
      await getDatabase().query<{ discord_id: string; alts_found: number; is_linked_as_alt: boolean }>(
        'select discord_id, alts_found, is_linked_as_alt from members order by id',
      )
    ).rows;

  it('deletes the member with its attempts, links and notes and recomputes the linked members', async () => {
    const database = getDatabase();
    const { main } = await scenario();
    const result = await database.db.transaction((tx) =>
      deleteMemberEverywhere(tx, main.discordId, actor, { now: new Date(), via: 'dashboard' }),
    );
    expect(result).toEqual({
      discordId: main.discordId,
      attempts: 2,
      links: 2,
      notes: 2,
      relinkedMembers: 2,
      outbox: { tokens: 0, finished: 0, logLines: 0 },
    });
    const left = async (table: string) => Number((await database.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);
    expect(await left('verification_attempts')).toBe(1);
    expect(await left('admin_notes')).toBe(0);
    expect(await left('alt_links')).toBe(1);
    expect(await counters()).toEqual([
      // the alt lost its certain link: no longer linked as alt; one medium link left
      { discord_id: '800000000000000002', alts_found: 1, is_linked_as_alt: false },
      { discord_id: '800000000000000003', alts_found: 1, is_linked_as_alt: false },
      { discord_id: '800000000000000004', alts_found: 0, is_linked_as_alt: false },
    ]);
  });

  it('audits the deletion with the Discord ID only', async () => {
    const database = getDatabase();
    const { main } = await scenario();
    await database.db.transaction((tx) => deleteMemberEverywhere(tx, main.discordId, actor, { now: new Date(), via: 'privacy_command' }));
    const rows = (
      await database.query<{ action: string; target_id: string; details: Record<string, unknown> }>(
        'select action, target_id, details from audit_log',
      )
    ).rows;
    expect(rows).toEqual([
      {
        action: 'member.delete',
        target_id: main.discordId,
        details: { via: 'privacy_command', attempts: 2, links: 2, notes: 2, relinkedMembers: 2 },
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain('main');
    expect(await verifyAuditChain(database.db)).toMatchObject({ verified: true });
  });

  it('returns null and writes nothing for an unknown Discord ID', async () => {
    const database = getDatabase();
    await scenario();
    expect(
      await database.db.transaction((tx) => deleteMemberEverywhere(tx, '899999999999999999', actor, { now: new Date(), via: 'dashboard' })),
    ).toBeNull();
    expect((await database.query('select 1 from audit_log')).rows).toHaveLength(0);
  });

  it('leaves everything in place when the surrounding transaction fails', async () => {
    const database = getDatabase();
    const { main } = await scenario();
    await expect(
      database.db.transaction(async (tx) => {
        await deleteMemberEverywhere(tx, main.discordId, actor, { now: new Date(), via: 'dashboard' });
        throw new Error('outbox down');
      }),
    ).rejects.toThrow('outbox down');
    expect((await database.query('select 1 from members')).rows).toHaveLength(4);
    expect((await database.query('select 1 from alt_links')).rows).toHaveLength(3);
    expect((await database.query('select 1 from audit_log')).rows).toHaveLength(0);
  });

  it('drops the outbox rows naming the member but keeps the role changes still to make', async () => {
    const database = getDatabase();
    const { main, alt } = await scenario();
    const outbox = createOutboxRepository({ sealKey: Buffer.alloc(32, 7), now: () => new Date() });
    const { db } = database;
    await outbox.enqueue(db, {
      kind: 'add_guild_member',
      discordId: main.discordId,
      roles: ['unverified'],
      accessToken: 'token',
      reason: 'Gatekeeper: test',
    });
    await outbox.enqueue(db, {
      kind: 'update_roles',
      discordId: main.discordId,
      add: ['unverified'],
      remove: ['verified'],
      reason: 'Gatekeeper: test',
    });
    await outbox.enqueue(db, { kind: 'log_message', event: 'verified', discordId: main.discordId, text: `<@${main.discordId}> verified` });
    await outbox.enqueue(db, { kind: 'log_message', event: 'verified', discordId: main.discordId, text: 'posted' });
    await database.query(`update discord_outbox set status = 'done' where payload->>'text' = 'posted'`);
    await outbox.enqueue(db, { kind: 'log_message', event: 'verified', discordId: alt.discordId, text: `<@${alt.discordId}> verified` });

    const result = await db.transaction((tx) => deleteMemberEverywhere(tx, main.discordId, actor, { now: new Date(), via: 'dashboard' }));
    expect(result?.outbox).toEqual({ tokens: 1, finished: 1, logLines: 1 });
    const left = (await database.query<{ kind: string; discord_id: string }>('select kind, discord_id from discord_outbox order by id'))
      .rows;
    expect(left).toEqual([
      { kind: 'update_roles', discord_id: main.discordId },
      { kind: 'log_message', discord_id: alt.discordId },
    ]);
  });
});
