import { eq } from 'drizzle-orm';
import { createManualClock } from '../../clock';
import { altLinks, appeals, auditLog, members, verificationAttempts } from '../../db/schema';
import { memberStanding } from '../../shared/member-badges';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildAttempt, buildLink, buildMember } from '../../test-support/factories';
import { RESCORE_CURSOR_KEY, rescoreAltLinks } from './alt-rescoring';
import { device, evidenceOf, memberByDiscordId } from '../../test-support/alt-factories';
import { RARITY } from './alt-scoring';
import { createOutboxRepository, saveGrant } from '../outbox';

const MINUTE = 60_000;

describeEngines('alt link re-scoring', (getDatabase) => {
  const clock = createManualClock(new Date('2026-02-01T10:00:00Z'));
  const db = () => getDatabase().db;
  const at = () => {
    clock.advance(MINUTE);
    return clock.now();
  };
  const rescore = (options = {}) => rescoreAltLinks({ database: getDatabase(), clock }, options);
  const linkRows = () => db().select().from(altLinks).orderBy(altLinks.id);
  const rescoreAudit = () => db().select().from(auditLog).where(eq(auditLog.action, 'alt_link.rescore')).orderBy(auditLog.id);
  const phone = device('stock-phone');

  /** A member whose attempt is stored without detection (as if they verified while the pair's link stood). */
  const storedVisit = async (ip: string, fingerprint = phone) => {
    const member = await buildMember(db(), { createdAt: at() });
    await buildAttempt(db(), member.id, { ...evidenceOf(ip, fingerprint), createdAt: clock.now() });
    return member;
  };

  /**
   * Two members on two networks linked medium by an earlier rule while their phone profile was rare (today the
   * same fingerprint elsewhere is never more than possible), then four more members showing the profile.
   */
  const linkedWhileRare = async () => {
    const main = await buildMember(db(), { discordId: '100', createdAt: at(), altsFound: 1 });
    await buildAttempt(db(), main.id, { ...evidenceOf('192.0.2.10', phone), createdAt: clock.now() });
    const alt = await buildMember(db(), { discordId: '200', createdAt: at(), altsFound: 1 });
    await buildAttempt(db(), alt.id, { ...evidenceOf('203.0.113.20', phone), createdAt: clock.now() });
    await buildLink(db(), main.id, alt.id, {
      confidence: 'medium',
      detectionMethod: 'fingerprint',
      evidence: { fingerprintMatch: true, fingerprintShared: 0 },
    });
    // four strangers on four other networks show the same stock phone profile
    for (const ip of ['10.1.0.1', '10.2.0.1', '10.3.0.1', '10.4.0.1']) await storedVisit(ip);
  };

  /** Members enough to judge rarity (the new-server prior): the job re-scores only on such a server. */
  const fillServer = () =>
    getDatabase().query(
      `insert into members (discord_id, username) select (900000000000000000 + g)::text, 'filler' || g from generate_series(1, $1::int) as g`,
      [RARITY.membersToJudgeRarity],
    );

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    await fillServer();
  });

  const smallServer = () => getDatabase().exec(`delete from members where username like 'filler%'`);
  /** Marks every stored attempt as its consent judged the profile (stock phone or not). */
  const keptStock = (stock: boolean | null) => db().update(verificationAttempts).set({ stockProfile: stock });

  it('on a server too small to judge rarity, leaves a link whose attempts do not say whether their profile looked stock', async () => {
    await smallServer();
    await linkedWhileRare();
    // stored before attempts kept it
    await keptStock(null);
    const before = await linkRows();
    expect(await rescore()).toMatchObject({ scanned: 1, changed: 0, unscorable: 1, passComplete: true });
    expect(await linkRows()).toEqual(before);
    expect(await memberByDiscordId(db(), '200')).toMatchObject({ altsFound: 1 });
  });

  it('on a small server, downgrades a link between two stock phone profiles on two networks (the new-server prior)', async () => {
    await smallServer();
    await linkedWhileRare();
    await keptStock(true);
    expect(await rescore()).toMatchObject({ scanned: 1, changed: 1, unscorable: 0 });
    expect((await linkRows())[0]).toMatchObject({ confidence: 'possible' });
    expect((await linkRows())[0]!.evidence).toMatchObject({ fingerprintMatch: true, rarityJudged: false });
    expect(await memberByDiscordId(db(), '200')).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
    expect((await rescoreAudit())[0]!.details).toMatchObject({ from: 'medium', to: 'possible' });
  });

  it.each([
    [false, 'certain'],
    [true, 'possible'],
  ] as const)('on a small server, one fingerprint twice on one address, kept as stock %s, is re-scored %s', async (stock, confidence) => {
    await smallServer();
    const main = await storedVisit('192.0.2.90', device('one-device'));
    const alt = await storedVisit('192.0.2.90', device('one-device'));
    await buildLink(db(), main.id, alt.id, { confidence: 'possible', detectionMethod: 'ip', evidence: { ipMatch: true } });
    await keptStock(stock);
    await rescore();
    expect((await linkRows())[0]).toMatchObject({ confidence });
    expect((await linkRows())[0]!.evidence).toMatchObject({ ipMatch: true, fingerprintMatch: true, rarityJudged: !stock });
  });

  it('downgrades a link made while a device profile was rare, with an audit line saying why, and recounts both members', async () => {
    await linkedWhileRare();
    expect(await memberByDiscordId(db(), '200')).toMatchObject({ altsFound: 1 });

    const result = await rescore();
    expect(result).toMatchObject({ scanned: 1, changed: 1, refreshed: 0, deferred: 0, unscorable: 0, passComplete: true });
    const [link] = await linkRows();
    expect(link).toMatchObject({ confidence: 'possible', detectionMethod: 'fingerprint' });
    expect(link!.evidence).toMatchObject({ fingerprintMatch: true, fingerprintShared: 4 });
    expect(await memberByDiscordId(db(), '100')).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
    expect(await memberByDiscordId(db(), '200')).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
    const [audit] = await rescoreAudit();
    expect(audit).toMatchObject({ actorType: 'system', targetId: '200' });
    expect(audit!.details).toMatchObject({ from: 'medium', to: 'possible', mainDiscordId: '100', altDiscordId: '200' });
    expect(String((audit!.details as { why?: unknown }).why)).toBe(
      'downgraded: now same device model as 4 other members (weak, not counted); before same device model, shown by no other member (medium)',
    );
  });

  it('is safe to run twice: the second pass changes nothing and writes no audit line', async () => {
    await linkedWhileRare();
    await rescore();
    const before = await linkRows();
    const again = await rescore();
    expect(again).toMatchObject({ scanned: 1, changed: 0, refreshed: 0 });
    expect(await linkRows()).toEqual(before);
    expect(await rescoreAudit()).toHaveLength(1);
  });

  it('upgrades a link whose shared device became rare, and the alt side becomes a certain alt', async () => {
    const main = await storedVisit('192.0.2.50', device('laptop'));
    const alt = await storedVisit('192.0.2.50', device('laptop'));
    await buildLink(db(), main.id, alt.id, {
      confidence: 'possible',
      detectionMethod: 'ip',
      evidence: { ipMatch: true, addressShared: 30 },
    });

    expect(await rescore()).toMatchObject({ changed: 1 });
    expect((await linkRows())[0]).toMatchObject({ confidence: 'certain', detectionMethod: 'both' });
    const altNow = await memberByDiscordId(db(), alt.discordId);
    expect(altNow).toMatchObject({ altsFound: 1, isLinkedAsAlt: true });
    expect(memberStanding(altNow)).toBe('certain_alt');
    expect((await rescoreAudit())[0]!.details).toMatchObject({
      from: 'possible',
      to: 'certain',
      why: expect.stringMatching(
        /^upgraded: now same device model, shown by no other member; same internet address, shown by no other member.* \(certain\)/,
      ),
    });
  });

  it('queues a Linked Roles connection update for an alt side whose link became certain, when it gave a grant', async () => {
    const key = Buffer.alloc(32, 3);
    const outbox = createOutboxRepository({ sealKey: key, now: () => clock.now() });
    const main = await storedVisit('192.0.2.51', device('shared-desktop'));
    const alt = await storedVisit('192.0.2.51', device('shared-desktop'));
    await buildLink(db(), main.id, alt.id, {
      confidence: 'possible',
      detectionMethod: 'ip',
      evidence: { ipMatch: true, addressShared: 30 },
    });
    await saveGrant(
      db(),
      key,
      alt.discordId,
      { accessToken: 'access', refreshToken: 'refresh', accessExpiresAt: new Date(clock.now().getTime() + MINUTE) },
      clock.now(),
    );
    await saveGrant(
      db(),
      key,
      main.discordId,
      { accessToken: 'access-main', refreshToken: 'refresh-main', accessExpiresAt: new Date(clock.now().getTime() + MINUTE) },
      clock.now(),
    );

    expect(await rescoreAltLinks({ database: getDatabase(), clock, outbox })).toMatchObject({ changed: 1 });
    expect((await linkRows())[0]).toMatchObject({ confidence: 'certain' });
    // only the alt side's standing moved; the main is no alt either way
    const queued = await getDatabase().query<{ kind: string; discord_id: string }>(
      `select kind, discord_id from discord_outbox order by id`,
    );
    expect(queued.rows).toEqual([{ kind: 'role_connection', discord_id: alt.discordId }]);
  });

  it('brings the evidence of an unchanged tier up to date without an audit line', async () => {
    // two devices on one home address: possible (the address alone), stored when 30 others were counted there
    const main = await storedVisit('192.0.2.70', device('desk'));
    const alt = await storedVisit('192.0.2.70', device('other'));
    await buildLink(db(), main.id, alt.id, {
      confidence: 'possible',
      detectionMethod: 'ip',
      evidence: { ipMatch: true, addressShared: 30 },
    });
    expect(await rescore()).toMatchObject({ changed: 0, refreshed: 1 });
    expect((await linkRows())[0]).toMatchObject({ confidence: 'possible' });
    expect((await linkRows())[0]!.evidence).toMatchObject({ ipMatch: true, addressShared: 0 });
    expect(await rescoreAudit()).toHaveLength(0);
  });

  it('never touches links staff dismissed or made, nor links of members without stored attempts', async () => {
    await linkedWhileRare();
    const [detected] = await linkRows();
    await db().update(altLinks).set({ dismissedAt: clock.now(), dismissedByName: 'Mod' }).where(eq(altLinks.id, detected!.id));
    const a = await memberByDiscordId(db(), '100');
    const third = await storedVisit('10.20.0.1');
    await buildLink(db(), a.id, third.id, { confidence: 'certain', detectionMethod: 'manual', evidence: {} });
    const gone = await buildMember(db());
    await buildLink(db(), a.id, gone.id, { confidence: 'medium', detectionMethod: 'fingerprint', evidence: { fingerprintMatch: true } });
    const before = await linkRows();

    expect(await rescore()).toMatchObject({ scanned: 1, changed: 0, unscorable: 1 });
    expect(await linkRows()).toEqual(before);
    expect(await rescoreAudit()).toHaveLength(0);
  });

  it('leaves the links of a member with an open appeal for staff, and re-scores them once the appeal is decided', async () => {
    await linkedWhileRare();
    const alt = await memberByDiscordId(db(), '200');
    const [appeal] = await db().insert(appeals).values({ memberId: alt.id, message: 'only account', standing: 'limited' }).returning();
    const before = await linkRows();
    expect(await rescore()).toMatchObject({ scanned: 1, deferred: 1, changed: 0 });
    expect(await linkRows()).toEqual(before);
    expect(await memberByDiscordId(db(), '200')).toMatchObject({ altsFound: 1 });

    await db().update(appeals).set({ status: 'rejected', decidedAt: clock.now() }).where(eq(appeals.id, appeal!.id));
    expect(await rescore()).toMatchObject({ changed: 1 });
  });

  it("changes the tier and counters of a member staff gave an alt status, but not the member's standing", async () => {
    const main = await storedVisit('192.0.2.60', device('desk'));
    const alt = await storedVisit('203.0.113.60', device('other'));
    await buildLink(db(), main.id, alt.id, { confidence: 'certain', detectionMethod: 'both', evidence: {} });
    await db().update(members).set({ isLinkedAsAlt: true, altsFound: 1, manualAltStatus: 'certain_alt' }).where(eq(members.id, alt.id));
    expect(memberStanding(await memberByDiscordId(db(), alt.discordId))).toBe('certain_alt');

    expect(await rescore()).toMatchObject({ changed: 1 });
    expect((await linkRows())[0]).toMatchObject({ confidence: 'possible' });
    const after = await memberByDiscordId(db(), alt.discordId);
    expect(after).toMatchObject({ isLinkedAsAlt: false, altsFound: 0, manualAltStatus: 'certain_alt' });
    expect(memberStanding(after)).toBe('certain_alt');
  });

  it('leaves a link that staff dismissed while it was being scored', async () => {
    await linkedWhileRare();
    const [link] = await linkRows();
    const database = getDatabase();
    // staff dismiss the link after the job read and scored it, before it writes
    const db = new Proxy(database.db, {
      get(target, prop, receiver) {
        if (prop !== 'transaction') return Reflect.get(target, prop, receiver) as unknown;
        return async (work: Parameters<typeof target.transaction>[0]) => {
          await target.update(altLinks).set({ dismissedAt: clock.now(), dismissedByName: 'Mod' }).where(eq(altLinks.id, link!.id));
          return target.transaction(work);
        };
      },
    });
    expect(await rescoreAltLinks({ database: { ...database, db }, clock })).toMatchObject({ scanned: 1, changed: 0 });
    expect((await linkRows())[0]).toMatchObject({ confidence: 'medium', dismissedByName: 'Mod', evidence: link!.evidence });
    expect(await rescoreAudit()).toHaveLength(0);
    expect(await memberByDiscordId(db, '200')).toMatchObject({ altsFound: 1 });
  });

  it('works in batches from a saved cursor, so an interrupted pass continues where it stopped', async () => {
    const pairs = [];
    for (let i = 0; i < 3; i++) {
      const main = await storedVisit(`192.0.2.${70 + i}`, device(`pc-${i}`));
      const alt = await storedVisit(`192.0.2.${70 + i}`, device(`pc-${i}`));
      pairs.push(await buildLink(db(), main.id, alt.id, { confidence: 'possible', detectionMethod: 'ip', evidence: {} }));
    }
    const cursor = async () =>
      (await getDatabase().query<{ value: { afterId: number } }>(`select value from settings where key = $1`, [RESCORE_CURSOR_KEY])).rows[0]
        ?.value.afterId;

    expect(await rescore({ batchSize: 1, maxBatches: 1 })).toMatchObject({ batches: 1, scanned: 1, changed: 1, passComplete: false });
    expect(await cursor()).toBe(pairs[0]!.id);
    expect((await linkRows()).map((l) => l.confidence)).toEqual(['certain', 'possible', 'possible']);

    // the next run starts after the last committed batch and finishes the pass
    expect(await rescore({ batchSize: 1 })).toMatchObject({ scanned: 2, changed: 2, passComplete: true });
    expect(await cursor()).toBe(0);
    expect((await linkRows()).map((l) => l.confidence)).toEqual(['certain', 'certain', 'certain']);
  });
});
