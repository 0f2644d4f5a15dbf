import { sql } from 'drizzle-orm';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { hashAuditEntry, GENESIS_HASH } from './audit-hash';
import { sealAuditLog } from './audit-sealer';
import { appendAudit, listAudit, verifyAuditChain, type AuditEntry } from './audit.repository';
import type { Executor } from '../../db/client';

/** Seals what is pending and reads the given rows back as they are now (sealed). */
async function sealed(db: Executor, ...appended: AuditEntry[]): Promise<AuditEntry[]> {
  await sealAuditLog(db);
  const { entries } = await listAudit(db, { limit: 200 });
  return appended.map((a) => entries.find((e) => e.id === a.id)!);
}

describeEngines('audit log', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  it('chains each row to the previous one and verifies', async () => {
    const { db } = getDatabase();
    const [first, second] = await sealed(
      db,
      await appendAudit(db, { actor: { type: 'staff', id: '1', name: 'Owner' }, action: 'staff.login' }),
      await appendAudit(db, { actor: { type: 'system', id: 'retention' }, action: 'retention.purge', details: { members: 3 } }),
    );
    expect(second!.prevHash).toBe(first!.hash);
    expect(await verifyAuditChain(db)).toEqual({ verified: true, checked: 2, brokenAt: null });
  });

  it('detects a row whose content was changed behind the trigger', async () => {
    const database = getDatabase();
    await appendAudit(database.db, { actor: { type: 'staff', id: '1' }, action: 'a' });
    const target = await appendAudit(database.db, { actor: { type: 'staff', id: '1' }, action: 'b' });
    await appendAudit(database.db, { actor: { type: 'staff', id: '1' }, action: 'c' });
    await database.exec('alter table audit_log disable trigger audit_log_no_update');
    await database.query(`update audit_log set action = 'forged' where id = $1`, [target.id]);
    await database.exec('alter table audit_log enable trigger audit_log_no_update');
    expect(await verifyAuditChain(database.db)).toMatchObject({ verified: false, brokenAt: target.id });
  });

  it('keeps one chain under concurrent writers', async () => {
    const { db } = getDatabase();
    await Promise.all(Array.from({ length: 20 }, (_, i) => appendAudit(db, { actor: { type: 'system' }, action: `job.${i}` })));
    expect(await verifyAuditChain(db)).toMatchObject({ verified: true, checked: 20 });
  });

  it('hashes in the database exactly as the chain is verified (quotes, unicode, nested details, nulls)', async () => {
    const { db } = getDatabase();
    const now = new Date('2026-11-22T05:17:13.123Z');
    const appended = await appendAudit(
      db,
      {
        actor: { type: 'staff', id: '42', name: 'Zoë "the mod" \\ O\'Brien\n✅' },
        action: 'member.note',
        targetType: 'member',
        targetId: '123',
        details: { z: [1, 2.5, null, true], a: { nested: 'at', '"at":': '"at":"x"' }, emoji: '🔎', empty: {} },
      },
      now,
    );
    const [entry] = await sealed(db, appended);
    expect(entry!.at.toISOString()).toBe(now.toISOString());
    expect(entry!.prevHash).toBe(GENESIS_HASH);
    expect(entry!.hash).toBe(
      hashAuditEntry(GENESIS_HASH, {
        at: now,
        actorType: 'staff',
        actorId: '42',
        actorName: entry!.actorName,
        action: 'member.note',
        targetType: 'member',
        targetId: '123',
        details: entry!.details,
      }),
    );
    expect(await verifyAuditChain(db)).toEqual({ verified: true, checked: 1, brokenAt: null });
  });

  it("never goes back in time along the chain, even when a writer's clock is behind", async () => {
    const { db } = getDatabase();
    const first = await appendAudit(db, { actor: { type: 'system' }, action: 'late' }, new Date('2030-01-01T00:00:00.001Z'));
    const second = await appendAudit(db, { actor: { type: 'system' }, action: 'early' }, new Date('2029-01-01T00:00:00Z'));
    expect(second.at.getTime()).toBe(first.at.getTime());
    expect(await verifyAuditChain(db)).toMatchObject({ verified: true, checked: 2 });
  });

  it('keeps one chain when audited transactions race, commit late or roll back', async () => {
    const { db } = getDatabase();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        db.transaction(async (tx) => {
          await tx.execute(sql`select 1`);
          await appendAudit(tx, { actor: { type: 'visitor', id: `${i}` }, action: 'race' });
          // work after the append, before commit: other appends do not wait for it
          await tx.execute(sql`select pg_sleep(${(i % 3) / 1000})`);
          if (i % 5 === 0) throw new Error('rolled back');
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(24);
    expect(await verifyAuditChain(db)).toEqual({ verified: true, checked: 24, brokenAt: null });
  });

  it('lists newest first with filters and a cursor', async () => {
    const { db } = getDatabase();
    for (let i = 0; i < 5; i++)
      await appendAudit(db, {
        actor: { type: 'staff', id: '7', name: 'Mod' },
        action: i % 2 ? 'member.delete' : 'note.save',
        targetId: `${i}`,
      });
    const page = await listAudit(db, { limit: 2 });
    expect(page.entries.map((e) => e.targetId)).toEqual(['4', '3']);
    const next = await listAudit(db, { limit: 2, before: page.nextCursor! });
    expect(next.entries.map((e) => e.targetId)).toEqual(['2', '1']);
    expect((await listAudit(db, { action: 'member.delete' })).entries).toHaveLength(2);
    expect((await listAudit(db, { actor: 'mod' })).entries).toHaveLength(5);
    expect((await listAudit(db, { target: '3' })).entries).toHaveLength(1);
  });
});
