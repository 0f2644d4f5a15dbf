import { eq } from 'drizzle-orm';
import { members } from '../../db/schema';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildMember } from '../../test-support/factories';
import { listAudit, verifyAuditChain } from '../audit';
import { confirmRulesAudited } from './verification.repository';

describeEngines('confirming the rules (one statement with its audit row)', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  it('confirms the member and appends rules.confirmed onto the chain', async () => {
    const { db } = getDatabase();
    const member = await buildMember(db, { rulesConfirmed: false });
    const now = new Date('2026-11-22T06:00:00.250Z');
    expect(await confirmRulesAudited(db, member.discordId, now)).toBe(true);
    const [row] = await db.select().from(members).where(eq(members.id, member.id));
    expect(row).toMatchObject({ rulesConfirmed: true, rulesConfirmedAt: now, lastSeenAt: now, updatedAt: now });
    const { entries } = await listAudit(db, {});
    expect(entries).toMatchObject([
      {
        actorType: 'visitor',
        actorId: member.discordId,
        action: 'rules.confirmed',
        targetType: 'member',
        targetId: member.discordId,
        details: {},
      },
    ]);
    expect(await verifyAuditChain(db)).toMatchObject({ verified: true, checked: 1 });
  });

  it('writes nothing for a Discord ID without a member', async () => {
    const { db } = getDatabase();
    await buildMember(db, { rulesConfirmed: false });
    expect(await confirmRulesAudited(db, '999999999999999999', new Date())).toBe(false);
    expect((await listAudit(db, {})).entries).toHaveLength(0);
  });

  it('keeps one chain when many members confirm at once', async () => {
    const { db } = getDatabase();
    const all = await Promise.all(Array.from({ length: 12 }, () => buildMember(db, { rulesConfirmed: false })));
    const results = await Promise.all(all.map((m) => confirmRulesAudited(db, m.discordId, new Date())));
    expect(results.every(Boolean)).toBe(true);
    expect(await verifyAuditChain(db)).toEqual({ verified: true, checked: 12, brokenAt: null });
  });
});
