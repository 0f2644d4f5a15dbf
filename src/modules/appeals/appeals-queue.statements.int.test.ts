import { systemClock } from '../../clock';
import { appeals } from '../../db/schema';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildLink, buildMember } from '../../test-support/factories';
import { recordPostgresStatements } from '../../test-support/statement-counter';
import { listAltsForMember, listAltsForMembers } from '../alts';
import { createOutboxRepository } from '../outbox';
import { createAppealsService } from './appeals.service';

jest.setTimeout(60_000);

/** The appeals queue reads its members' links in one statement, however many appeals it shows. */
describeEngines('appeals queue round trips', (getDatabase, engine) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  const service = () =>
    createAppealsService({
      database: getDatabase(),
      clock: systemClock,
      outbox: createOutboxRepository({ sealKey: Buffer.alloc(32, 7), now: () => new Date() }),
      altLinks: { dismissAllAltLinks: async () => 0 },
    });

  /**
   * `n` certain alts, each with its main and a possible link to a stranger, each with an open appeal,
   * and as many decided ones (members at Limited Access).
   */
  async function seedAppeals(n: number): Promise<void> {
    const { db } = getDatabase();
    for (let i = 0; i < n; i++) {
      const main = await buildMember(db, { altsFound: 1 });
      const alt = await buildMember(db, { isLinkedAsAlt: true, altsFound: 1, guildAccess: 'denied' });
      await buildLink(db, main.id, alt.id);
      await buildLink(db, (await buildMember(db)).id, alt.id, { confidence: 'possible', detectionMethod: 'fingerprint' });
      await db.insert(appeals).values({ memberId: alt.id, message: `appeal ${i}`, standing: 'certain_alt' });
      const limited = await buildMember(db, { status: 'limited_access', guildAccess: 'limited' });
      await db.insert(appeals).values({
        memberId: limited.id,
        message: `decided ${i}`,
        standing: 'limited',
        status: 'rejected',
        decisionReason: 'no',
        decidedByName: 'Mod',
        decidedAt: new Date(),
      });
    }
  }

  it('reads every member’s links as listAltsForMember does, one member at a time', async () => {
    const { db } = getDatabase();
    const [a, b, c, lonely] = [await buildMember(db), await buildMember(db), await buildMember(db), await buildMember(db)];
    // a and b are both listed and linked to each other: the link shows for each, from its own side
    await buildLink(db, a.id, b.id, { confidence: 'medium', detectionMethod: 'ip' });
    await buildLink(db, c.id, a.id);
    await buildLink(db, b.id, c.id, {
      confidence: 'possible',
      detectionMethod: 'fingerprint',
      dismissedAt: new Date(),
      dismissedByName: 'Mod',
    });
    const batched = await listAltsForMembers(db, [a.id, b.id, lonely.id]);
    expect([...batched.keys()].sort()).toEqual([a.id, b.id, lonely.id].sort());
    for (const member of [a, b, lonely]) expect(batched.get(member.id)).toEqual(await listAltsForMember(db, member.id));
    expect(batched.get(a.id)!.map((alt) => [alt.memberId, alt.otherIs])).toEqual([
      [c.id, 'main'],
      [b.id, 'alt'],
    ]);
    expect(batched.get(lonely.id)).toEqual([]);
    expect(await listAltsForMembers(db, [])).toEqual(new Map());
  });

  it('shows each appeal with its own member’s evidence', async () => {
    await seedAppeals(3);
    const queue = await service().queue('open');
    expect(queue.appeals).toHaveLength(3);
    for (const appeal of queue.appeals) expect(appeal.evidence.links).toEqual({ certain: 1, medium: 0 });
  });

  const run = engine === 'postgres' ? it : it.skip;
  run.each(['open', 'decided'] as const)('loads the %s queue in the same number of statements for 1 appeal and for 20', async (status) => {
    const statementsFor = async (n: number) => {
      await resetDatabase(getDatabase());
      await seedAppeals(n);
      const appeals = service();
      const log = recordPostgresStatements();
      try {
        const queue = await appeals.queue(status);
        expect(queue.appeals).toHaveLength(n);
        return log.take();
      } finally {
        log.stop();
      }
    };
    const one = await statementsFor(1);
    const twenty = await statementsFor(20);
    // the page of appeals with their members, the open count, and every member's links
    expect(one).toHaveLength(3);
    expect(twenty).toHaveLength(one.length);
    expect(twenty.filter((text) => /alt_links/.test(text))).toHaveLength(1);
  });
});
