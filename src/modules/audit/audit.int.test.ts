import { describeEngines, resetDatabase } from '../../test-support/database';
import { appendAudit, listAudit, verifyAuditChain } from './audit.repository';

describeEngines('audit log', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  it('chains each row to the previous one and verifies', async () => {
    const { db } = getDatabase();
    const first = await appendAudit(db, { actor: { type: 'staff', id: '1', name: 'Owner' }, action: 'staff.login' });
    const second = await appendAudit(db, { actor: { type: 'system', id: 'retention' }, action: 'retention.purge', details: { members: 3 } });
    expect(second.prevHash).toBe(first.hash);
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

  it('lists newest first with filters and a cursor', async () => {
    const { db } = getDatabase();
    for (let i = 0; i < 5; i++) await appendAudit(db, { actor: { type: 'staff', id: '7', name: 'Mod' }, action: i % 2 ? 'member.delete' : 'note.save', targetId: `${i}` });
    const page = await listAudit(db, { limit: 2 });
    expect(page.entries.map((e) => e.targetId)).toEqual(['4', '3']);
    const next = await listAudit(db, { limit: 2, before: page.nextCursor! });
    expect(next.entries.map((e) => e.targetId)).toEqual(['2', '1']);
    expect((await listAudit(db, { action: 'member.delete' })).entries).toHaveLength(2);
    expect((await listAudit(db, { actor: 'mod' })).entries).toHaveLength(5);
    expect((await listAudit(db, { target: '3' })).entries).toHaveLength(1);
  });
});
