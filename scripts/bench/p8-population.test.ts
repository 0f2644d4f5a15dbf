import { computeFingerprintHash } from '../../src/modules/fingerprint';
import { verdictQuality } from './p8-metrics';
import { snowflakeTimestamp } from '../../src/shared/discord-snowflake';
import {
  ACCOUNT_AGE_ASSUMPTIONS,
  ALT_KINDS,
  SITTING_MS,
  TIMING_ASSUMPTIONS,
  fingerprintOf,
  generatePopulation,
  pairKind,
  POPULATION_START_MS,
  populationStats,
  SHARED_SHARE_TARGET,
  truePairs,
  type BenchAccount,
} from './p8-population';

describe('P8 population generator', () => {
  const population = generatePopulation({ people: 20_000, seed: 8 });
  const byIndex = (i: number) => population.accounts[i]!;

  it('is deterministic for a seed and differs between seeds', () => {
    const again = generatePopulation({ people: 2_000, seed: 3 });
    expect(generatePopulation({ people: 2_000, seed: 3 })).toEqual(again);
    expect(generatePopulation({ people: 2_000, seed: 4 }).accounts.map((a) => a.ip)).not.toEqual(again.accounts.map((a) => a.ip));
  });

  it('gives every person one to three accounts, the first one verifying first, in time order', () => {
    const byPerson = new Map<number, BenchAccount[]>();
    for (const account of population.accounts) byPerson.set(account.personId, [...(byPerson.get(account.personId) ?? []), account]);
    expect(byPerson.size).toBe(20_000);
    for (const accounts of byPerson.values()) {
      expect(accounts.length).toBeGreaterThanOrEqual(1);
      expect(accounts.length).toBeLessThanOrEqual(3);
      expect(accounts.filter((a) => a.kind === 'first')).toHaveLength(1);
      expect(accounts[0]!.kind).toBe('first');
    }
    const outOfOrder = population.accounts.filter((a, i) => a.index !== i || (i > 0 && a.atMs < byIndex(i - 1).atMs));
    expect(outOfOrder).toEqual([]);
    expect(new Set(population.accounts.map((a) => a.discordId)).size).toBe(population.accounts.length);
  });

  it('moves verification times by a timing assumption only, alts and household members into one sitting as often as it says', () => {
    const people = 4_000;
    const spread = generatePopulation({ people, seed: 5 });
    for (const timing of ['base', 'pessimistic'] as const) {
      const timed = generatePopulation({ people, seed: 5, timing });
      // the same people, devices, addresses and alt kinds: only the times (and so the order) differ
      const key = (a: BenchAccount) => `${a.personId}|${a.kind}|${a.deviceId}|${a.ip}|${a.profileToken}`;
      expect(timed.accounts.map(key).sort()).toEqual(spread.accounts.map(key).sort());
      const firstAt = new Map(timed.accounts.filter((a) => a.kind === 'first').map((a) => [a.personId, a.atMs]));
      const alts = timed.accounts.filter((a) => a.kind !== 'first');
      expect(alts.every((a) => a.atMs >= firstAt.get(a.personId)!)).toBe(true);
      const withinHour = alts.filter((a) => a.atMs - firstAt.get(a.personId)! < SITTING_MS).length / alts.length;
      // the assumption's share, plus the few alts the month's spread puts there anyway
      expect(withinHour).toBeGreaterThanOrEqual(TIMING_ASSUMPTIONS[timing].sameSitting - 0.04);
      expect(withinHour).toBeLessThanOrEqual(TIMING_ASSUMPTIONS[timing].sameSitting + 0.04);
    }
    const spreadAlts = spread.accounts.filter((a) => a.kind !== 'first');
    const spreadFirst = new Map(spread.accounts.filter((a) => a.kind === 'first').map((a) => [a.personId, a.atMs]));
    expect(spreadAlts.filter((a) => a.atMs - spreadFirst.get(a.personId)! < SITTING_MS).length / spreadAlts.length).toBeLessThan(0.02);
  });

  it('gives every account a creation time its Discord id carries, aged as the assumption says', () => {
    const DAY = 24 * 3600 * 1000;
    for (const a of population.accounts.slice(0, 500))
      expect(snowflakeTimestamp(a.discordId)).toBe(Math.floor(POPULATION_START_MS + a.createdMs));
    const share = (kind: (a: BenchAccount) => boolean, days: number, accounts = population.accounts) => {
      const of = accounts.filter(kind);
      return of.filter((a) => a.atMs - a.createdMs <= days * DAY).length / of.length;
    };
    const { madeForIt, newToDiscord } = ACCOUNT_AGE_ASSUMPTIONS.base;
    expect(share((a) => a.kind !== 'first', 2)).toBeCloseTo(madeForIt, 1);
    expect(share((a) => a.kind === 'first', 30)).toBeCloseTo(newToDiscord, 1);
    expect(population.accounts.every((a) => a.createdMs <= a.atMs)).toBe(true);
    // the pessimistic assumption changes the ages only: the same people, devices and places
    const pessimistic = generatePopulation({ people: 2_000, seed: 8, accountAge: 'pessimistic' });
    const base = generatePopulation({ people: 2_000, seed: 8 });
    expect(pessimistic.accounts.map((a) => [a.personId, a.ip, a.atMs])).toEqual(base.accounts.map((a) => [a.personId, a.ip, a.atMs]));
    expect(share((a) => a.kind !== 'first', 2, pessimistic.accounts)).toBeLessThan(share((a) => a.kind !== 'first', 2, base.accounts));
  });

  it('labels each alt by what its session shares with the first account', () => {
    const firstOf = new Map(population.accounts.filter((a) => a.kind === 'first').map((a) => [a.personId, a]));
    for (const alt of population.accounts.filter((a) => a.kind !== 'first')) {
      const first = firstOf.get(alt.personId)!;
      // a VPN-flagged first account makes every later pair a VPN pair
      if (!first.vpn) expect(pairKind(first, alt)).toBe(alt.kind);
      if (alt.kind === 'same-browser') {
        expect(alt.profileToken).toBe(first.profileToken);
        expect(alt.fingerprint).toEqual(first.fingerprint);
      }
      if (alt.kind === 'fresh-profile') {
        expect(alt.profileToken).not.toBe(first.profileToken);
        expect(alt.fingerprint).toEqual(first.fingerprint);
      }
      if (alt.kind === 'second-browser') {
        expect(alt.deviceId).toBe(first.deviceId);
        expect(alt.browser).not.toBe(first.browser);
        expect([alt.fingerprint.screen, alt.fingerprint.hardware, alt.fingerprint.platform]).toEqual([
          first.fingerprint.screen,
          first.fingerprint.hardware,
          first.fingerprint.platform,
        ]);
      }
      if (alt.kind === 'other-device') expect(alt.deviceId).not.toBe(first.deviceId);
      if (alt.kind === 'vpn') expect(alt.vpn).toBe(true);
    }
    for (const pair of truePairs(population)) expect(pair.a.personId).toBe(pair.b.personId);
    const customised = population.devices.find((d) => d.customised)!;
    expect(fingerprintOf({ ...customised, id: 999_999 }, customised.browser, null).canvas).not.toBe(
      fingerprintOf(customised, customised.browser, null).canvas,
    );
    expect(
      pairKind(
        byIndex(0),
        population.accounts.find((a) => a.personId !== byIndex(0).personId)!,
      ),
    ).toBeNull();
  });

  it('makes every kind of alt, households, dorms, carrier NAT and public Wi-Fi', () => {
    const stats = populationStats(population);
    for (const kind of ALT_KINDS) expect(stats.pairsByKind[kind]).toBeGreaterThan(200);
    expect(stats.venues.campus).toBeGreaterThan(1000);
    expect(stats.venues['public-wifi']).toBeGreaterThan(1000);
    expect(stats.busiestAddress).toBeGreaterThan(500);
    const homes = new Map<string, Set<number>>();
    for (const a of population.accounts.filter((x) => x.venue === 'home')) homes.set(a.ip, (homes.get(a.ip) ?? new Set()).add(a.personId));
    expect([...homes.values()].filter((people) => people.size >= 4).length).toBeGreaterThan(100);
  });

  it('shares fingerprints between devices about as often as the adF measurement found', () => {
    const { shared } = populationStats(population);
    expect(Math.abs(shared.mobile.share - SHARED_SHARE_TARGET.mobile)).toBeLessThan(0.05);
    expect(Math.abs(shared.desktop.share - SHARED_SHARE_TARGET.desktop)).toBeLessThan(0.05);
  });

  it('renders one browser the same on equal devices, and a private Safari window with noise', () => {
    const phone = population.devices.find((d) => d.platform === 'mobile' && d.os === 'ios' && !d.customised)!;
    const twin = { ...phone, id: 999_999 };
    expect(computeFingerprintHash(fingerprintOf(twin, phone.browser, null))).toBe(
      computeFingerprintHash(fingerprintOf(phone, phone.browser, null)),
    );
    expect(fingerprintOf(phone, 'safari', 'noise-key').canvas).not.toBe(fingerprintOf(phone, 'safari', null).canvas);
  });

  it('scores verdicts against the truth', () => {
    const small = generatePopulation({ people: 500, seed: 1 });
    const pairs = truePairs(small).filter((p) => p.kind !== 'vpn');
    const stranger = small.accounts.findIndex((a) => a.personId !== pairs[0]!.a.personId);
    const quality = verdictQuality(small, [
      ...pairs.map((p) => ({ a: p.a.index, b: p.b.index, confidence: 'certain' as const })),
      { a: pairs[0]!.a.index, b: stranger, confidence: 'certain' },
    ]);
    const certain = quality.tiers.find((t) => t.tier === 'certain')!;
    expect(certain.truePositives).toBe(pairs.length);
    expect(certain.links).toBe(pairs.length + 1);
    expect(certain.recallAtOrAbove).toBe(1);
    expect(certain.falsePer10k).toBeCloseTo((1 / 500) * 10_000);
    expect(quality.sameDeviceRecall.share).toBe(1);
  });
});
