import fc from 'fast-check';
import {
  countBucket,
  describeSignature,
  evidenceClasses,
  heldOutChoice,
  recallCeiling,
  strangersNeeded,
  type EvidenceClass,
  type EvidenceClasses,
} from './p8-ceiling';
import { fingerprintOf, type BenchAccount, type Device, type Population } from './p8-population';

const klass = (alts: number, strangers: number, code = 0): EvidenceClass => ({ code, alts, strangers });

describe('P8 ceiling: the most any rule on the evidence reaches', () => {
  it('buckets counts as the capped anonymity counts tell them apart', () => {
    expect([0, 1, 2, 3, 5, 6, 10, 11, 63, 64, 5000].map(countBucket)).toEqual([0, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
  });

  it('takes the classes with the fewest strangers per alt first, the last one in part', () => {
    const classes = [klass(2, 20), klass(5, 0), klass(3, 3)];
    expect(recallCeiling(classes, 10, 0)).toBeCloseTo(0.5);
    expect(recallCeiling(classes, 10, 3)).toBeCloseTo(0.8);
    expect(recallCeiling(classes, 10, 13)).toBeCloseTo(0.9);
    expect(recallCeiling(classes, 10, 1_000)).toBeCloseTo(1);
    expect(strangersNeeded(classes, 10, 0.5)).toBeCloseTo(0);
    expect(strangersNeeded(classes, 10, 0.8)).toBeCloseTo(3);
    expect(strangersNeeded(classes, 10, 0.9)).toBeCloseTo(13);
    expect(strangersNeeded(classes, 10, 1)).toBeCloseTo(23);
    // alts no signature separates from nothing: no rule finds them
    expect(strangersNeeded(classes, 12, 1)).toBe(Infinity);
  });

  it('is never below what a rule — any choice of whole classes — reaches within the budget', () => {
    const classSet = fc.array(fc.record({ alts: fc.integer({ min: 0, max: 20 }), strangers: fc.integer({ min: 0, max: 50 }) }), {
      minLength: 1,
      maxLength: 8,
    });
    fc.assert(
      fc.property(classSet, fc.integer({ min: 0, max: 120 }), (records, budget) => {
        const classes = records.map((r) => klass(r.alts, r.strangers));
        const total = classes.reduce((sum, c) => sum + c.alts, 0) || 1;
        const ceiling = recallCeiling(classes, total, budget);
        for (let rule = 0; rule < 1 << classes.length; rule++) {
          const chosen = classes.filter((_, i) => rule & (1 << i));
          if (chosen.reduce((sum, c) => sum + c.strangers, 0) > budget) continue;
          expect(ceiling).toBeGreaterThanOrEqual(chosen.reduce((sum, c) => sum + c.alts, 0) / total - 1e-9);
        }
      }),
    );
  });

  it("reads the bound's choice of classes on another population: what it took there, by code, with that population's pairs", () => {
    const fitted: EvidenceClasses = {
      classes: [klass(3, 0, 1), klass(1, 0, 2), klass(5, 5, 3), klass(0, 9, 5)],
      sameDevicePairs: 9,
      people: 10_000,
      pairs: 23,
    };
    const held: EvidenceClasses = {
      classes: [klass(2, 4, 1), klass(5, 0, 3), klass(7, 0, 4)],
      sameDevicePairs: 20,
      people: 5_000,
      pairs: 18,
    };
    // no false link allowed where it was fitted: classes 1 and 2; here only class 1 exists, with strangers
    expect(heldOutChoice(fitted, held, 0)).toEqual({ recall: 2 / 20, falsePer10k: 8 });
    // 5 false links per 10k allow class 3 too (5 strangers among 10,000)
    expect(heldOutChoice(fitted, held, 5)).toEqual({ recall: 7 / 20, falsePer10k: 8 });
    // class 4 was never seen where the choice was made
    expect(heldOutChoice(held, fitted, 0).recall).toBeCloseTo(5 / 9);
  });

  describe('on a household', () => {
    const phone: Device = {
      id: 0,
      platform: 'mobile',
      model: 'iphone-1',
      os: 'ios',
      browser: 'safari',
      customised: false,
      fontsAcrossBrowsers: true,
      locale: { timezone: 'Europe/Berlin', language: 'de-DE' },
    };
    const sistersPhone: Device = { ...phone, id: 1 };
    let index = 0;
    const account = (personId: number, kind: BenchAccount['kind'], device: Device, profileToken: string): BenchAccount => ({
      index: index,
      discordId: String(900 + index),
      username: `u${index++}`,
      personId,
      householdId: 0,
      kind,
      deviceId: device.id,
      platform: device.platform,
      browser: device.browser,
      profileToken,
      privateWindow: false,
      venue: 'home',
      ip: '20.0.0.1',
      vpn: false,
      fingerprint: fingerprintOf(device, device.browser, null),
      atMs: index * 1000,
      // every account years old: the account's age plays no part in these cases
      createdMs: -1e11,
    });
    const population = (alt: BenchAccount['kind'], altToken: string): Population => {
      index = 0;
      const accounts = [account(0, 'first', phone, 'mary'), account(1, 'first', sistersPhone, 'sue'), account(0, alt, phone, altToken)];
      return { seed: 0, people: 2, accounts, devices: [phone, sistersPhone] };
    };

    it('cannot tell a fresh profile on the same stock phone from the sister holding the same model: no rule finds it without linking her', () => {
      const evidence = evidenceClasses(population('fresh-profile', 'mary-new-profile'), 2, 'product');
      expect(evidence.sameDevicePairs).toBe(1);
      expect(evidence.pairs).toBe(2);
      expect(evidence.classes).toEqual([klass(1, 1, evidence.classes[0]!.code)]);
      expect(recallCeiling(evidence.classes, 1, 0)).toBe(0);
      expect(strangersNeeded(evidence.classes, 1, 1)).toBe(1);
      expect(describeSignature(evidence.classes[0]!.code, 'product')).toBe(
        'address(1) + fingerprint(1, 1 networks, 1 here) + canvas(1) + webgl(1) + audio(1) + fonts(1) + screen + timezone + language + platform',
      );
    });

    it('finds the same browser profile by its token without linking her', () => {
      const evidence = evidenceClasses(population('same-browser', 'mary'), 2, 'product');
      expect(evidence.classes.map((c) => [c.alts, c.strangers]).sort()).toEqual([
        [0, 1],
        [1, 0],
      ]);
      expect(recallCeiling(evidence.classes, 1, 0)).toBe(1);
      const tokenClass = evidence.classes.find((c) => c.alts === 1)!;
      expect(describeSignature(tokenClass.code, 'product')).toMatch(/^token\(1 networks\) \+ address\(1\)/);
    });

    it('tells the two apart with the times when the alt was made after Mary verified and Sue had not: the signature says so', () => {
      const households = population('fresh-profile', 'mary-new-profile');
      // Mary verified at 1 s and Sue at 2 s; the alt's account was made at 1.5 s and verified at 3 s
      households.accounts[2] = { ...households.accounts[2]!, createdMs: 1500 };
      const evidence = evidenceClasses(households, 2, 'with-timing');
      expect(evidence.classes.map((c) => [c.alts, c.strangers]).sort()).toEqual([
        [0, 1],
        [1, 0],
      ]);
      const altClass = evidence.classes.find((c) => c.alts === 1)!;
      expect(describeSignature(altClass.code, 'with-timing')).toMatch(
        /^created after the other verified \+ within the hour \+ young account/,
      );
      // without the times the two stay one class
      expect(evidenceClasses(households, 2, 'product').classes).toHaveLength(1);
    });

    it('counts the low-entropy components too when asked for every count', () => {
      const evidence = evidenceClasses(population('fresh-profile', 'mary-new-profile'), 2, 'every-count');
      expect(describeSignature(evidence.classes[0]!.code, 'every-count')).toContain(
        'timezone(1) + language(1) + platform(1) + hardware(1)',
      );
    });
  });
});
