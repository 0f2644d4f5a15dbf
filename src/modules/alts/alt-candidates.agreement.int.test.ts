import fc from 'fast-check';
import { describeEngines } from '../../test-support/database';
import { candidateProbe, findAltCandidates, scoringContext } from './alt-candidates.repository';
import { canBeFlagged, COMPARED_COMPONENTS, hasDeviceIdentity, RARITY, type AnonymityCounts, type AttemptSignals } from './alt-scoring';
import { markSharedNetwork } from './shared-networks.repository';

/**
 * Candidate eligibility is written twice: canBeFlagged in TypeScript, and the branches of
 * find_alt_candidates in SQL (src/db/functions). On generated attempts, the lookup must
 * return exactly the stored attempts canBeFlagged accepts (given the anonymity counts: a
 * device component only a couple of members show is read on any network). The anonymity counts scoring
 * weighs them by are also counted twice (in SQL over the indexes, and here over the
 * generated rows) and must agree.
 */

/** The counts of the rule's definition: distinct other members (networks) showing each of the attempt's values. */
function expectedCounts(
  attempt: AttemptSignals,
  others: { member: string; signals: AttemptSignals }[],
  membersStored: number,
): AnonymityCounts {
  const members = (keep: (s: AttemptSignals) => boolean) => new Set(others.filter((o) => keep(o.signals)).map((o) => o.member)).size;
  const same = (a: string | null, b: string | null) => a !== null && a === b;
  const fingerprint = hasDeviceIdentity(attempt) ? attempt.fingerprintHash : null;
  const sameFingerprint = (s: AttemptSignals) => same(s.fingerprintHash, fingerprint);
  return {
    fingerprint: members(sameFingerprint),
    fingerprintNetworks: new Set(
      others.filter((o) => sameFingerprint(o.signals) && o.signals.networkHash !== null).map((o) => o.signals.networkHash),
    ).size,
    address: members((s) => same(s.ipHash, attempt.ipHash)),
    addressFingerprint: members((s) => same(s.ipHash, attempt.ipHash) && sameFingerprint(s)),
    canvas: members((s) => same(s.canvasHash, attempt.canvasHash)),
    webgl: members((s) => same(s.webglHash, attempt.webglHash)),
    audio: members((s) => same(s.audioHash, attempt.audioHash)),
    fonts: members((s) => same(s.fontsHash, attempt.fontsHash)),
    browserTokenNetworks: new Set(
      others
        .filter((o) => same(o.signals.browserTokenHash ?? null, attempt.browserTokenHash ?? null) && o.signals.networkHash !== null)
        .map((o) => o.signals.networkHash),
    ).size,
    members: Math.min(membersStored, RARITY.membersToJudgeRarity),
  };
}

type Device = Pick<AttemptSignals, `${(typeof COMPARED_COMPONENTS)[number]}Hash`>;

/** Two values and "absent" per signal: small enough that generated attempts often share one. */
const value = (prefix: string) => fc.constantFrom<string | null>(`${prefix}-a`, `${prefix}-b`, null);

const deviceArbitrary: fc.Arbitrary<Device> = fc.record(
  Object.fromEntries(COMPARED_COMPONENTS.map((c) => [`${c}Hash`, value(c)])) as { [K in keyof Device]: fc.Arbitrary<string | null> },
);

/**
 * An attempt as the product stores one: a Limited Access attempt keeps no hash at all;
 * otherwise the fingerprint hash covers every component (equal fingerprints mean equal
 * components), and may exist with no high-entropy component (every probe failed).
 */
function attemptOf(
  limited: boolean,
  place: { ipHash: string | null; networkHash: string | null; browserTokenHash: string | null },
  device: Device,
): AttemptSignals {
  if (limited)
    return {
      ipHash: null,
      networkHash: null,
      fingerprintHash: null,
      browserTokenHash: null,
      ...Object.fromEntries(COMPARED_COMPONENTS.map((c) => [`${c}Hash`, null])),
    } as AttemptSignals;
  return { ...place, ...device, fingerprintHash: `fp:${COMPARED_COMPONENTS.map((c) => device[`${c}Hash`] ?? '-').join('|')}` };
}

// the browser token travels with the browser, not the place; generated with it for brevity (any pairing is possible)
const placeArbitrary = fc.record({ ipHash: value('ip'), networkHash: value('net'), browserTokenHash: value('tok') });
const attemptArbitrary = fc.tuple(placeArbitrary, deviceArbitrary).map(([place, device]) => attemptOf(false, place, device));

const caseArbitrary = attemptArbitrary.chain((attempt) => {
  const own: Device = Object.fromEntries(COMPARED_COMPONENTS.map((c) => [`${c}Hash`, attempt[`${c}Hash`]])) as Device;
  // a candidate is the same device (a second account), a device differing in some components, or another one
  const candidateDevice = fc.oneof(
    fc.constant(own),
    deviceArbitrary.map((d) => ({ ...own, ...Object.fromEntries(Object.entries(d).filter(([, v]) => v === null)) })),
    deviceArbitrary,
  );
  const candidate = fc
    .tuple(
      fc.nat(9).map((n) => n === 0),
      placeArbitrary,
      candidateDevice,
    )
    .map(([limited, place, device]) => attemptOf(limited, place, device));
  return fc.record({
    attempt: fc.constant(attempt),
    candidates: fc.array(candidate, { minLength: 0, maxLength: 14 }),
    /** attempts of the attempt's own member, which the lookup never returns */
    ownEarlier: fc.array(candidate, { maxLength: 2 }),
    networkMarkedShared: fc.boolean(),
  });
});

const SELF = '1000';
const discordIdOf = (index: number) => String(2000 + index);

describeEngines('alt candidate lookup agrees with canBeFlagged', (getDatabase) => {
  it('on generated attempts, shared networks and limited attempts', async () => {
    const database = getDatabase();
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async ({ attempt, candidates, ownEarlier, networkMarkedShared }) => {
        await database.exec('delete from verification_attempts; delete from shared_networks; delete from members');
        const rows = [
          ...ownEarlier.map((signals) => ({ member: SELF, signals })),
          ...candidates.map((signals, i) => ({ member: discordIdOf(i), signals })),
        ];
        const input = rows.map(({ member, signals }, ord) => ({
          ord,
          member,
          ...Object.fromEntries(Object.entries(signals).map(([key, v]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v])),
        }));
        await database.query(
          `with input as (
             select * from jsonb_to_recordset($1::jsonb) as x(ord int, member text, ip_hash text, network_hash text, fingerprint_hash text, canvas_hash text, webgl_hash text,
                                                            audio_hash text, fonts_hash text, screen_hash text, timezone_hash text, language_hash text, platform_hash text, browser_token_hash text)
           ), new_members as (
             insert into members (discord_id, username) select m, m from (select $2::text as m union select member from input) as all_members returning id, discord_id
           )
           insert into verification_attempts (member_id, ip_hash, network_hash, fingerprint_hash, canvas_hash, webgl_hash, audio_hash, fonts_hash, screen_hash, timezone_hash, language_hash, platform_hash, browser_token_hash, outcome)
           select nm.id, i.ip_hash, i.network_hash, i.fingerprint_hash, i.canvas_hash, i.webgl_hash, i.audio_hash, i.fonts_hash, i.screen_hash, i.timezone_hash, i.language_hash, i.platform_hash, i.browser_token_hash, 'verified'
           from input i join new_members nm on nm.discord_id = i.member order by i.ord`,
          [JSON.stringify(input), SELF],
        );
        const self = Number(
          (await database.query<{ id: number | string }>('select id from members where discord_id = $1', [SELF])).rows[0]!.id,
        );
        if (networkMarkedShared && attempt.networkHash)
          await markSharedNetwork(database.db, { networkHash: attempt.networkHash, now: new Date() });
        const sharedNetwork = networkMarkedShared && attempt.networkHash !== null;

        const lookup = await findAltCandidates(database.db, candidateProbe(attempt), { excludeMemberId: self });
        const found = lookup.candidates.map((c) => c.member.discordId).sort();
        // the members table holds the attempt's own member and one per candidate
        const counts = expectedCounts(
          attempt,
          candidates.map((signals, i) => ({ member: discordIdOf(i), signals })),
          1 + candidates.length,
        );
        const eligible = candidates
          .flatMap((candidate, i) => (canBeFlagged(attempt, candidate, { sharedNetwork, counts }) ? [discordIdOf(i)] : []))
          .sort();
        expect(found).toEqual(eligible);
        if (found.length > 0) expect(lookup.sharedNetwork).toBe(sharedNetwork);
        if (found.length > 0) expect(scoringContext(attempt, lookup).counts).toEqual(counts);
      }),
      { numRuns: 120 },
    );
  });

  it("counts the members up to RARITY.membersToJudgeRarity, the new-server prior's size", async () => {
    const database = getDatabase();
    await database.exec('delete from verification_attempts; delete from shared_networks; delete from members');
    const probe = {
      ipHash: 'ip-a',
      networkHash: 'net-a',
      fingerprintHash: null,
      canvasHash: null,
      webglHash: null,
      audioHash: null,
      fontsHash: null,
    };
    const membersCounted = async () => (await findAltCandidates(database.db, probe, { excludeMemberId: 0 })).counts.members;
    const add = (from: number, to: number) =>
      database.query(`insert into members (discord_id, username) select g::text, 'm' || g from generate_series($1::int, $2::int) as g`, [
        from,
        to,
      ]);
    await add(1, RARITY.membersToJudgeRarity - 1);
    expect(await membersCounted()).toBe(RARITY.membersToJudgeRarity - 1);
    await add(RARITY.membersToJudgeRarity, RARITY.membersToJudgeRarity + 5);
    expect(await membersCounted()).toBe(RARITY.membersToJudgeRarity);
  });
});
