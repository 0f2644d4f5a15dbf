import { eq } from 'drizzle-orm';
import { createManualClock } from '../../clock';
import { altLinks, members } from '../../db/schema';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { hashIp } from '../network';
import { altCandidateRepository } from './alt-candidates.repository';
import { createAltDetectionService } from './alt-detection.service';
import { altLinkRepository, listAltsForMember, listLinkedMemberIds, recomputeAltCounters } from './alt-links.repository';
import { sharedNetworkRepository } from './shared-networks.repository';
import { device, memberByDiscordId, TEST_IP_KEY, visit } from '../../test-support/alt-factories';

const MINUTE = 60_000;

describeEngines('alt detection', (getDatabase, engine) => {
  const clock = createManualClock(new Date('2026-02-01T10:00:00Z'));
  const service = createAltDetectionService({ attempts: altCandidateRepository, links: altLinkRepository, clock });
  const db = () => getDatabase().db;
  const at = () => {
    clock.advance(MINUTE);
    return clock.now();
  };
  const links = () => db().select().from(altLinks).orderBy(altLinks.id);

  beforeEach(async () => {
    await resetDatabase(getDatabase());
  });

  it('links two accounts from one browser and address as certain, the newer one as the alt', async () => {
    const first = await visit(db(), service, { discordId: '100', ip: '192.0.2.10', fingerprint: device('laptop'), at: at() });
    expect(first.result).toEqual({ alts: [], altsFound: 0, isLinkedAsAlt: false });

    const second = await visit(db(), service, { discordId: '200', ip: '192.0.2.10', fingerprint: device('laptop'), at: at() });
    expect(second.result).toMatchObject({ altsFound: 1, isLinkedAsAlt: true });
    expect(second.result.alts).toEqual([
      expect.objectContaining({
        otherDiscordId: '100',
        memberIs: 'alt',
        confidence: 'certain',
        detectionMethod: 'both',
        change: 'created',
      }),
    ]);

    const [link] = await links();
    expect(link).toMatchObject({
      mainMemberId: first.member.id,
      altMemberId: second.member.id,
      confidence: 'certain',
      detectionMethod: 'both',
    });
    expect(link!.evidence).toMatchObject({
      ipMatch: true,
      networkMatch: true,
      fingerprintMatch: true,
      sharedNetwork: false,
      components: { canvas: true, webgl: true, audio: true, fonts: true, screen: true, timezone: true, language: true, platform: true },
    });
    expect(await memberByDiscordId(db(), '100')).toMatchObject({ altsFound: 1, isLinkedAsAlt: false });
    expect(await memberByDiscordId(db(), '200')).toMatchObject({ altsFound: 1, isLinkedAsAlt: true });
  });

  it('links a household (same address or network, different devices) only as possible', async () => {
    const parent = await visit(db(), service, { discordId: '1', ip: '198.51.100.7', fingerprint: device('pc'), at: at() });
    // same public address, another device: possible by IP
    const child = await visit(db(), service, { discordId: '2', ip: '198.51.100.7', fingerprint: device('tablet'), at: at() });
    expect(child.result.alts).toEqual([
      expect.objectContaining({ otherMemberId: parent.member.id, confidence: 'possible', detectionMethod: 'ip' }),
    ]);
    expect(child.result.isLinkedAsAlt).toBe(false);

    // a neighbour address in the /24 with a similar machine (same fonts and time zone): possible by network
    const sibling = await visit(db(), service, {
      discordId: '3',
      ip: '198.51.100.99',
      fingerprint: device('laptop', { fonts: 'fonts-pc', timezone: 'timezone-pc' }),
      at: at(),
    });
    expect(sibling.result.alts).toEqual([
      expect.objectContaining({ otherMemberId: parent.member.id, confidence: 'possible', detectionMethod: 'network' }),
    ]);

    // same /24 but nothing else in common: no link
    const stranger = await visit(db(), service, { discordId: '4', ip: '198.51.100.150', fingerprint: device('phone'), at: at() });
    expect(stranger.result).toEqual({ alts: [], altsFound: 0, isLinkedAsAlt: false });

    expect(await memberByDiscordId(db(), '1')).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
    expect((await links()).map((l) => l.confidence)).toEqual(['possible', 'possible']);
  });

  it('on a new server, links one device seen from two places as possible (shared fingerprint)', async () => {
    const home = await visit(db(), service, { discordId: '10', ip: '192.0.2.10', fingerprint: device('phone'), at: at() });
    const away = await visit(db(), service, { discordId: '11', ip: '203.0.113.77', fingerprint: device('phone'), at: at() });
    // a fingerprint from another place is medium only once the server holds enough members to
    // say the fingerprint is rare; this test server holds two, so it is evidence staff see, not counted
    expect(away.result.alts).toEqual([
      expect.objectContaining({ otherMemberId: home.member.id, confidence: 'possible', detectionMethod: 'fingerprint', memberIs: 'alt' }),
    ]);
    expect(away.result).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
  });

  it('stops counting IP-only matches once staff mark the network as shared', async () => {
    await visit(db(), service, { discordId: '20', ip: '192.0.2.50', fingerprint: device('lab-1'), at: at() });
    await sharedNetworkRepository.mark(db(), {
      networkHash: hashIp(TEST_IP_KEY, '192.0.2.50').networkHash,
      label: 'school',
      markedBy: 'staff:1',
      now: clock.now(),
    });

    const classmate = await visit(db(), service, { discordId: '21', ip: '192.0.2.50', fingerprint: device('lab-2'), at: at() });
    expect(classmate.result).toEqual({ alts: [], altsFound: 0, isLinkedAsAlt: false });

    // the same machine still matches by fingerprint, but only as possible (a small server cannot
    // call a whole fingerprint rare): the address proves nothing there
    const sameMachine = await visit(db(), service, { discordId: '22', ip: '192.0.2.50', fingerprint: device('lab-1'), at: at() });
    expect(sameMachine.result.alts).toEqual([
      expect.objectContaining({ otherDiscordId: '20', confidence: 'possible', detectionMethod: 'fingerprint' }),
    ]);
    expect(sameMachine.result.alts[0]!.detected.evidence).toMatchObject({ ipMatch: true, sharedNetwork: true });
    expect(sameMachine.result.isLinkedAsAlt).toBe(false);

    await sharedNetworkRepository.unmark(db(), hashIp(TEST_IP_KEY, '192.0.2.50').networkHash);
    const later = await visit(db(), service, { discordId: '23', ip: '192.0.2.50', fingerprint: device('lab-3'), at: at() });
    expect(later.result.alts.map((a) => a.confidence)).toEqual(['possible', 'possible', 'possible']);
  });

  it('never links Limited Access (VPN) attempts, which keep no hashes', async () => {
    await visit(db(), service, { discordId: '30', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    const retry1 = await visit(db(), service, { discordId: '31', vpn: true, at: at() });
    const retry2 = await visit(db(), service, { discordId: '31', vpn: true, at: at() });
    expect(retry1.result).toEqual({ alts: [], altsFound: 0, isLinkedAsAlt: false });
    expect(retry2.result).toEqual({ alts: [], altsFound: 0, isLinkedAsAlt: false });
    const another = await visit(db(), service, { discordId: '32', vpn: true, at: at() });
    expect(another.result.alts).toEqual([]);
    expect(await links()).toEqual([]);
    expect(await memberByDiscordId(db(), '31')).toMatchObject({ verificationCount: 2, altsFound: 0 });
  });

  it('re-verifying the same account makes no self-link and no duplicate link', async () => {
    const main = await visit(db(), service, { discordId: '40', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    const again = await visit(db(), service, { discordId: '40', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    expect(again.member.id).toBe(main.member.id);
    expect(again.result).toEqual({ alts: [], altsFound: 0, isLinkedAsAlt: false });

    await visit(db(), service, { discordId: '41', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    const third = await visit(db(), service, { discordId: '40', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    // the older account re-verifying stays the main of the existing link, refreshed in place
    expect(third.result.alts).toEqual([
      expect.objectContaining({ otherDiscordId: '41', memberIs: 'main', confidence: 'certain', change: 'refreshed' }),
    ]);
    expect(third.result).toMatchObject({ altsFound: 1, isLinkedAsAlt: false });
    expect(await links()).toHaveLength(1);
    expect(await memberByDiscordId(db(), '40')).toMatchObject({ verificationCount: 3, altsFound: 1, isLinkedAsAlt: false });
    expect(await memberByDiscordId(db(), '41')).toMatchObject({ verificationCount: 1, altsFound: 1, isLinkedAsAlt: true });
  });

  it('keeps the stronger confidence, strengthens a weaker link, and leaves staff overrides alone', async () => {
    const a = await visit(db(), service, { discordId: '50', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    // first seen on the same address with another device: possible
    const b = await visit(db(), service, { discordId: '51', ip: '192.0.2.10', fingerprint: device('phone'), at: at() });
    expect(b.result.alts[0]).toMatchObject({ confidence: 'possible', change: 'created' });
    await db().update(members).set({ manualAltStatus: 'suspected_alt' }).where(eq(members.id, b.member.id));

    // then with the same browser: certain
    const b2 = await visit(db(), service, { discordId: '51', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    expect(b2.result.alts[0]).toMatchObject({ confidence: 'certain', change: 'strengthened', memberIs: 'alt' });
    expect(b2.result.isLinkedAsAlt).toBe(true);

    // then from elsewhere with the same device: possible found (a small server), certain kept
    const b3 = await visit(db(), service, { discordId: '51', ip: '203.0.113.5', fingerprint: device('pc'), at: at() });
    expect(b3.result.alts[0]).toMatchObject({
      confidence: 'certain',
      detected: expect.objectContaining({ confidence: 'possible' }),
      change: 'kept',
    });
    const [link] = await links();
    expect(link).toMatchObject({ mainMemberId: a.member.id, altMemberId: b.member.id, confidence: 'certain', detectionMethod: 'both' });
    expect(await memberByDiscordId(db(), '51')).toMatchObject({ manualAltStatus: 'suspected_alt', isLinkedAsAlt: true, altsFound: 1 });
  });

  it('never rewrites a link staff made by hand', async () => {
    const a = await visit(db(), service, { discordId: '60', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    const b = await visit(db(), service, { discordId: '61', ip: '203.0.113.9', fingerprint: device('tablet'), at: at() });
    await db()
      .insert(altLinks)
      .values({
        mainMemberId: b.member.id,
        altMemberId: a.member.id,
        confidence: 'possible',
        detectionMethod: 'manual',
        evidence: { note: 'staff' },
      });
    const b2 = await visit(db(), service, { discordId: '61', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    expect(b2.result.alts[0]).toMatchObject({ change: 'kept', confidence: 'possible', detectionMethod: 'manual', memberIs: 'main' });
    expect(await links()).toEqual([
      expect.objectContaining({ detectionMethod: 'manual', confidence: 'possible', evidence: { note: 'staff' } }),
    ]);
  });

  it('scores the best attempt of each candidate member', async () => {
    const a = await visit(db(), service, { discordId: '70', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    await visit(db(), service, { discordId: '70', ip: '192.0.2.20', fingerprint: device('phone'), at: at() });
    const b = await visit(db(), service, { discordId: '71', ip: '192.0.2.20', fingerprint: device('pc'), at: at() });
    // attempt 1 of '70' shares the device, attempt 2 the address and nothing else: both possible on a
    // server this small; one link, from the stronger evidence (the device: the higher score)
    expect(b.result.alts).toEqual([
      expect.objectContaining({ otherMemberId: a.member.id, confidence: 'possible', detectionMethod: 'fingerprint' }),
    ]);
  });

  it('lists the alts of a member for the detail page, strongest first, with the component comparison', async () => {
    await visit(db(), service, { discordId: '80', username: 'main', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    await visit(db(), service, {
      discordId: '81',
      username: 'twin',
      ip: '192.0.2.10',
      fingerprint: device('pc', { language: 'error' }),
      at: at(),
    });
    await visit(db(), service, { discordId: '82', username: 'roommate', ip: '192.0.2.10', fingerprint: device('other'), at: at() });
    const main = await memberByDiscordId(db(), '80');
    const twin = await memberByDiscordId(db(), '81');
    // its 'possible' link is listed, not counted
    expect(main).toMatchObject({ altsFound: 1 });

    const alts = await listAltsForMember(db(), main.id);
    expect(alts).toEqual([
      {
        linkId: expect.any(Number),
        memberId: twin.id,
        discordId: '81',
        username: 'twin',
        avatarUrl: 'https://cdn.example/81.png',
        confidence: 'certain',
        detectionMethod: 'both',
        fingerprintComponents: { canvas: true, webgl: true, audio: true, fonts: true, screen: true, timezone: true, platform: true },
        otherIs: 'alt',
        // the stored evidence, as the detail page's standing sentence reads it
        evidence: expect.objectContaining({ ipMatch: true, componentMatches: 7 }),
        linkedAt: expect.any(Date),
        updatedAt: expect.any(Date),
        dismissal: null,
      },
      expect.objectContaining({ discordId: '82', confidence: 'possible', detectionMethod: 'ip', otherIs: 'alt' }),
    ]);
    // from the alt's side the main is listed
    expect(await listAltsForMember(db(), twin.id)).toEqual([
      expect.objectContaining({ discordId: '80', username: 'main', confidence: 'certain', otherIs: 'main' }),
      expect.objectContaining({ discordId: '82', confidence: 'possible', otherIs: 'alt' }),
    ]);
  });

  it('recounts the others after a member is deleted', async () => {
    await visit(db(), service, { discordId: '90', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    await visit(db(), service, { discordId: '91', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    const gone = await memberByDiscordId(db(), '90');
    const others = await listLinkedMemberIds(db(), gone.id);
    await db().delete(members).where(eq(members.id, gone.id));
    await recomputeAltCounters(db(), others);
    expect(await memberByDiscordId(db(), '91')).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
  });

  it('keeps counters right when two verifications link to one member at the same time (PostgreSQL)', async () => {
    if (engine !== 'postgres') return; // PGlite runs one transaction at a time
    const main = await visit(db(), service, { discordId: '500', ip: '192.0.2.10', fingerprint: device('pc'), at: at() });
    const first = new Date(clock.now().getTime() + MINUTE);
    const second = new Date(clock.now().getTime() + 2 * MINUTE);
    await Promise.all([
      visit(db(), service, { discordId: '501', ip: '192.0.2.10', fingerprint: device('pc'), at: first }),
      visit(db(), service, { discordId: '502', ip: '192.0.2.10', fingerprint: device('pc'), at: second }),
    ]);
    // which confidence the second link gets depends on whether it saw the other's attempt (a
    // fingerprint three accounts show is less rare); whatever the order, the counters agree
    // with the links stored: both newcomers linked to the main, each counted once
    expect(await memberByDiscordId(db(), '500')).toMatchObject({ id: main.member.id, altsFound: 2, isLinkedAsAlt: false });
    for (const discordId of ['501', '502']) {
      const member = await memberByDiscordId(db(), discordId);
      const links = await listAltsForMember(db(), member.id);
      expect(links).toEqual(expect.arrayContaining([expect.objectContaining({ discordId: '500', otherIs: 'main' })]));
      const certainToMain = links.some((l) => l.discordId === '500' && l.confidence === 'certain');
      expect(member.isLinkedAsAlt).toBe(links.some((l) => l.otherIs === 'main' && l.confidence === 'certain'));
      expect(certainToMain || links.find((l) => l.discordId === '500')!.confidence === 'medium').toBe(true);
    }
  });
});
