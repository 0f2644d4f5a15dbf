import crypto from 'node:crypto';
import { createManualClock } from '../../clock';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { buildLink, buildMember } from '../../test-support/factories';
import { memberBadges, statusBadge } from '../../shared/member-badges';
import { altCandidateRepository, createAltDetectionService, altLinkRepository } from '../alts';
import { device, visit } from '../../test-support/alt-factories';
import { createOutboxRepository } from '../outbox';
import { decideButtonOutcome } from '../admission';
import { createAltDetector } from '../verification';
import type { ActingStaff, DiscordStaff } from './member-actor';
import { ALT_LINK_ALREADY_DISMISSED, ALT_LINK_NOT_DISMISSED, createMembersService } from './members.service';

const MAIN = '600000000000000001';
const ALT = '600000000000000002';
const OTHER_ALT = '600000000000000003';
const STRANGER = '600000000000000009';
const DISCORD_STAFF: DiscordStaff = { kind: 'discord', discordId: '600000000000000099', username: 'helper' };

describeEngines('members service: dismissing and reopening alt links', (getDatabase) => {
  const clock = createManualClock(new Date('2026-03-01T12:00:00Z'));
  const outbox = createOutboxRepository({ sealKey: crypto.randomBytes(32), now: () => clock.now() });
  const service = () => createMembersService({ database: getDatabase(), clock, outbox });
  const detection = createAltDetectionService({ attempts: altCandidateRepository, links: altLinkRepository, clock });
  const query = async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) =>
    (await getDatabase().query<T>(text, params)).rows;
  let mod: ActingStaff;

  beforeEach(async () => {
    await resetDatabase(getDatabase());
    const [row] = await query<{ id: number }>("insert into staff (username, password_hash) values ('Mod', 'x') returning id::int as id");
    mod = { id: row!.id, username: 'Mod' };
  });

  /** MAIN with two certain alts (ALT, OTHER_ALT), counters as detection leaves them. */
  async function seedTwoAlts() {
    const { db } = getDatabase();
    const main = await buildMember(db, { discordId: MAIN, guildAccess: 'verified' });
    const alt = await buildMember(db, { discordId: ALT });
    const otherAlt = await buildMember(db, { discordId: OTHER_ALT });
    const first = await buildLink(db, main.id, alt.id);
    const second = await buildLink(db, main.id, otherAlt.id, { confidence: 'medium', detectionMethod: 'fingerprint' });
    await altLinkRepository.recomputeCounters(db, [main.id, alt.id, otherAlt.id]);
    return { main, alt, otherAlt, first, second };
  }

  const counters = async () =>
    query<{ discord_id: string; alts_found: number; is_linked_as_alt: boolean }>(
      'select discord_id, alts_found, is_linked_as_alt from members order by id',
    );

  it('a dismissed link counts nowhere: counters, standing, badge, filters, the button; the evidence stays listed as dismissed', async () => {
    const { first } = await seedTwoAlts();
    expect(await counters()).toEqual([
      { discord_id: MAIN, alts_found: 2, is_linked_as_alt: false },
      { discord_id: ALT, alts_found: 1, is_linked_as_alt: true },
      { discord_id: OTHER_ALT, alts_found: 1, is_linked_as_alt: false },
    ]);
    expect(decideButtonOutcome(await service().detail(ALT))).toBe('denied_alt');

    await service().dismissAltLink(mod, ALT, first.id, '  siblings, checked on voice  ');

    expect(await counters()).toEqual([
      { discord_id: MAIN, alts_found: 1, is_linked_as_alt: false },
      { discord_id: ALT, alts_found: 0, is_linked_as_alt: false },
      { discord_id: OTHER_ALT, alts_found: 1, is_linked_as_alt: false },
    ]);
    const alt = await service().detail(ALT);
    expect(decideButtonOutcome(alt)).toBe('verified');
    expect(statusBadge(alt).label).toBe('Verified');
    expect(memberBadges(await service().detail(MAIN)).map((b) => b.label)).toEqual(['Verified', '1 Alt']);
    const certainAlts = await service().list({ filter: 'certain_alts', limit: 50 });
    expect(certainAlts.users.map((u) => u.discordId)).toEqual([]);
    const verified = await service().list({ filter: 'verified', limit: 50 });
    expect(verified.users.map((u) => u.discordId).sort()).toEqual([MAIN, ALT, OTHER_ALT]);

    // both members' pages list it, dismissed, with who and why
    expect(alt.alts).toEqual([
      expect.objectContaining({
        linkId: first.id,
        discordId: MAIN,
        otherIs: 'main',
        confidence: 'certain',
        dismissed: { at: clock.now().toISOString(), byName: 'Mod', reason: 'siblings, checked on voice' },
      }),
    ]);
    const main = await service().detail(MAIN);
    expect(main.alts.map((a) => [a.discordId, a.dismissed === null])).toEqual([
      [OTHER_ALT, true],
      [ALT, false],
    ]);
    expect(
      await query('select dismissed_by_staff_id::int as by, dismissed_by_name, dismiss_reason from alt_links where id = $1', [first.id]),
    ).toEqual([{ by: mod.id, dismissed_by_name: 'Mod', dismiss_reason: 'siblings, checked on voice' }]);
    // audit names both members and the staff member; the reason's text stays out of the append-only log
    expect(await query('select actor_type, actor_name, action, target_id, details from audit_log')).toEqual([
      {
        actor_type: 'staff',
        actor_name: 'Mod',
        action: 'member.alt_link_dismiss',
        target_id: ALT,
        details: {
          linkId: first.id,
          mainDiscordId: MAIN,
          altDiscordId: ALT,
          confidence: 'certain',
          detectionMethod: 'both',
          withReason: true,
        },
      },
    ]);
    expect(await query("select payload->>'text' as text from discord_outbox")).toEqual([
      { text: `🔗 Staff member Mod dismissed the alt link between <@${MAIN}> and <@${ALT}>: not the same person` },
    ]);
  });

  it('reopening restores counting and is audit-logged; a Discord actor may do both', async () => {
    const { first } = await seedTwoAlts();
    await service().dismissAltLink(DISCORD_STAFF, MAIN, first.id);
    expect(await query('select dismissed_by_staff_id, dismissed_by_name, dismiss_reason from alt_links where id = $1', [first.id])).toEqual(
      [{ dismissed_by_staff_id: null, dismissed_by_name: 'helper (Discord)', dismiss_reason: null }],
    );
    await service().reopenAltLink(mod, MAIN, first.id);
    expect(await counters()).toEqual([
      { discord_id: MAIN, alts_found: 2, is_linked_as_alt: false },
      { discord_id: ALT, alts_found: 1, is_linked_as_alt: true },
      { discord_id: OTHER_ALT, alts_found: 1, is_linked_as_alt: false },
    ]);
    expect(decideButtonOutcome(await service().detail(ALT))).toBe('denied_alt');
    expect((await service().detail(ALT)).alts[0]!.dismissed).toBeNull();
    expect(await query('select dismissed_at, dismissed_by_name from alt_links where id = $1', [first.id])).toEqual([
      { dismissed_at: null, dismissed_by_name: null },
    ]);
    expect(await query('select actor_type, action, details from audit_log order by id')).toEqual([
      {
        actor_type: 'discord',
        action: 'member.alt_link_dismiss',
        details: expect.objectContaining({ linkId: first.id, withReason: false }),
      },
      {
        actor_type: 'staff',
        action: 'member.alt_link_reopen',
        details: { linkId: first.id, mainDiscordId: MAIN, altDiscordId: ALT, confidence: 'certain', detectionMethod: 'both' },
      },
    ]);
  });

  it('refuses bad input with 404 or 409 and writes nothing', async () => {
    const { first, second } = await seedTwoAlts();
    await buildMember(getDatabase().db, { discordId: STRANGER });
    await service().dismissAltLink(mod, MAIN, second.id);
    const before = {
      links: await query('select * from alt_links order by id'),
      members: await counters(),
      audit: await query('select id from audit_log'),
      outbox: await query('select id from discord_outbox'),
    };

    await expect(service().dismissAltLink(mod, '600000000000000077', first.id)).rejects.toMatchObject({
      status: 404,
      message: 'User not found',
    });
    await expect(service().dismissAltLink(mod, MAIN, 999_999)).rejects.toMatchObject({ status: 404, message: 'Alt link not found' });
    // a link of other members, asked for from a third member's page
    await expect(service().dismissAltLink(mod, STRANGER, first.id)).rejects.toMatchObject({ status: 404, message: 'Alt link not found' });
    await expect(service().dismissAltLink(mod, OTHER_ALT, first.id)).rejects.toMatchObject({ status: 404 });
    await expect(service().dismissAltLink(mod, OTHER_ALT, second.id)).rejects.toMatchObject({
      status: 409,
      message: ALT_LINK_ALREADY_DISMISSED,
    });
    await expect(service().reopenAltLink(mod, MAIN, first.id)).rejects.toMatchObject({ status: 409, message: ALT_LINK_NOT_DISMISSED });
    await expect(service().reopenAltLink(mod, STRANGER, second.id)).rejects.toMatchObject({ status: 404 });
    await expect(service().reopenAltLink(mod, '600000000000000077', second.id)).rejects.toMatchObject({ status: 404 });
    await expect(service().dismissAllAltLinks(mod, '600000000000000077')).rejects.toMatchObject({ status: 404 });

    expect({
      links: await query('select * from alt_links order by id'),
      members: await counters(),
      audit: await query('select id from audit_log'),
      outbox: await query('select id from discord_outbox'),
    }).toEqual(before);
  });

  it('dismissAllAltLinks dismisses every open counting link of a member, either direction, and leaves possible links open', async () => {
    const { db } = getDatabase();
    const { main, alt } = await seedTwoAlts();
    const third = await buildMember(db, { discordId: '600000000000000004' });
    // ALT is the main of a medium link to a newer account, and has a possible one that counts nowhere
    await buildLink(db, alt.id, third.id, { confidence: 'medium', detectionMethod: 'ip' });
    const possible = await buildMember(db, { discordId: '600000000000000005' });
    await buildLink(db, alt.id, possible.id, { confidence: 'possible', detectionMethod: 'ip' });
    await altLinkRepository.recomputeCounters(db, [main.id, alt.id, third.id, possible.id]);

    expect(await service().dismissAllAltLinks(mod, ALT, 'appeal upheld')).toBe(2);
    expect(
      await query('select discord_id, alts_found, is_linked_as_alt from members where discord_id in ($1, $2, $3) order by id', [
        MAIN,
        ALT,
        '600000000000000004',
      ]),
    ).toEqual([
      { discord_id: MAIN, alts_found: 1, is_linked_as_alt: false },
      { discord_id: ALT, alts_found: 0, is_linked_as_alt: false },
      { discord_id: '600000000000000004', alts_found: 0, is_linked_as_alt: false },
    ]);
    expect(
      await query(
        'select confidence, dismiss_reason from alt_links where dismissed_at is null and (main_member_id = $1 or alt_member_id = $1)',
        [alt.id],
      ),
    ).toEqual([{ confidence: 'possible', dismiss_reason: null }]);
    expect(await query("select count(*)::int as n from audit_log where action = 'member.alt_link_dismiss'")).toEqual([{ n: 2 }]);
    // nothing left to dismiss: 0, and nothing written
    expect(await service().dismissAllAltLinks(mod, ALT)).toBe(0);
    expect(await query('select count(*)::int as n from audit_log')).toEqual([{ n: 2 }]);
  });

  it('a new verification of a dismissed pair, in either direction, never links it again', async () => {
    const { db } = getDatabase();
    const at = (minutes: number) => new Date(Date.UTC(2026, 1, 1, 10, minutes));
    await visit(db, detection, { discordId: '100', ip: '192.0.2.10', fingerprint: device('laptop'), at: at(0) });
    const second = await visit(db, detection, { discordId: '200', ip: '192.0.2.10', fingerprint: device('laptop'), at: at(1) });
    expect(second.result).toMatchObject({ altsFound: 1, isLinkedAsAlt: true });
    const [link] = await query<{ id: number }>('select id::int as id from alt_links');
    await service().dismissAltLink(mod, '200', link!.id);

    // the alt verifies again, then the main: the detection finds the pair, and leaves it dismissed
    const again = await visit(db, detection, { discordId: '200', ip: '192.0.2.10', fingerprint: device('laptop'), at: at(2) });
    expect(again.result).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
    expect(again.result.alts).toEqual([expect.objectContaining({ otherDiscordId: '100', change: 'dismissed' })]);
    const mainAgain = await visit(db, detection, { discordId: '100', ip: '192.0.2.10', fingerprint: device('laptop'), at: at(3) });
    expect(mainAgain.result).toMatchObject({ altsFound: 0, isLinkedAsAlt: false });
    expect(await query('select count(*)::int as n, bool_and(dismissed_at is not null) as dismissed from alt_links')).toEqual([
      { n: 1, dismissed: true },
    ]);
    expect(await query('select discord_id, alts_found, is_linked_as_alt from members order by id')).toEqual([
      { discord_id: '100', alts_found: 0, is_linked_as_alt: false },
      { discord_id: '200', alts_found: 0, is_linked_as_alt: false },
    ]);
    // the verification flow's view leaves the dismissed pair out (no "Alt detected" line, nothing in its audit row)
    const flowView = await createAltDetector({ detectAlts: async () => again.result, lookupQuery: () => null }).detect(db, {
      member: again.member,
      attempt: {},
    } as never);
    expect(flowView).toEqual({ alts: [], isLinkedAsAlt: false, madeCertainAlt: [] });

    // reopened, the pair counts again and a later detection refreshes it as usual
    await service().reopenAltLink(mod, '100', link!.id);
    const afterReopen = await visit(db, detection, { discordId: '200', ip: '192.0.2.10', fingerprint: device('laptop'), at: at(4) });
    expect(afterReopen.result).toMatchObject({ altsFound: 1, isLinkedAsAlt: true });
    expect(afterReopen.result.alts).toEqual([expect.objectContaining({ otherDiscordId: '100', change: 'refreshed' })]);
  });
});
