#!/usr/bin/env node
/**
 * EXPERIMENT (not product code): the product's alt rule replayed in memory over the P8
 * population and scored window, each rule's links counted, under each account-age
 * assumption (ACCOUNT_AGE_ASSUMPTIONS in p8-population.ts: 'base', then 'pessimistic'):
 *
 *   npx tsx scripts/bench/p8-proposal.ts [--people 25000] [--scored 3000] [--seed 8] [--ceiling] [--misses] [--base-only] [--sitting] [--gap] [--noise]
 *
 * --noise measures the private-window experiment (noisedPrivateWindow) as medium, alone and
 * with its guard.
 *
 * --gap lists the evidence classes the bound takes with at most 0, 100 and 300 false links per
 * 10k legitimate members (p8-ceiling.ts, best ratio first) that the badge tier (certain+medium)
 * does not count, and the same classes grouped by what the pair shares without the counts (the
 * evidence a rule blind to exact counts would see): whether the gap is a kind of evidence or
 * the bound's fine split of it.
 *
 * --sitting generates the population with the timing assumption of the same name
 * (TIMING_ASSUMPTIONS) and measures the experiment's rules on the time between two attempts
 * (SITTING_RULES), with the bound over every rule that reads the time too.
 *
 * --ceiling adds the ceiling's budget table and the evidence classes of the same-device
 * pairs the rule leaves below medium; --misses lists those pairs by how they were made.
 *
 * The signals are what the product stores (keyed address hashes, fingerprint hash,
 * component hashes, the browser token's keyed hash, the account's creation time from its
 * Discord id), judged by the product's `scoreCandidate` over every candidate the product's
 * lookup reads, with exact anonymity counts (the product's are capped at 64) and no
 * 50-candidate window: P8's in-product figures may differ a little.
 */
import crypto from 'node:crypto';
import {
  ALT_RULES,
  HIGH_ENTROPY_COMPONENTS,
  RARITY,
  scoreCandidate,
  type AltRule,
  type AnonymityCounts,
  type AttemptSignals,
} from '../../src/modules/alts';
import { computeFingerprintHash, hashFingerprintComponents, looksStock } from '../../src/modules/fingerprint';
import { hashIp } from '../../src/modules/network';
import {
  byRatio,
  ceilingSummary,
  describeSignature,
  evidenceClasses,
  recallCeiling,
  strangersNeeded,
  type CeilingSignature,
} from './p8-ceiling';
import { badgeTier, formatQuality, pairKey, pct, verdictQuality, type PairVerdict, type Tier } from './p8-metrics';
import {
  ACCOUNT_AGE_ASSUMPTIONS,
  SITTING_MS,
  TIMING_ASSUMPTIONS,
  generatePopulation,
  pairKind,
  SAME_DEVICE_KINDS,
  truePairs,
  type AccountAgeAssumption,
  type Population,
} from './p8-population';
import { populationSummary } from './p8-verdicts';

interface StoredAttempt extends AttemptSignals {
  index: number;
  /** keyed hash of the browser token; null for a Limited Access visit (nothing kept) */
  tokenHash: string | null;
}

/** Distinct-value counters per key: the anonymity sets, as an index would answer them (capped counts suffice). */
class AnonymitySets {
  private readonly sets = new Map<string, Set<string | number>>();
  add(key: string, value: string | number) {
    let set = this.sets.get(key);
    if (!set) this.sets.set(key, (set = new Set()));
    set.add(value);
  }
  count(key: string): number {
    return this.sets.get(key)?.size ?? 0;
  }
  has(key: string, value: string | number): boolean {
    return this.sets.get(key)?.has(value) ?? false;
  }
}

interface Memory {
  members: AnonymitySets;
  networks: AnonymitySets;
  byKey: Map<string, number[]>;
}

const push = (map: Map<string, number[]>, key: string, value: number) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

function remember(memory: Memory, a: StoredAttempt) {
  if (a.fingerprintHash === null || a.ipHash === null) return;
  const net = a.networkHash!;
  memory.members.add(`fp:${a.fingerprintHash}`, a.index);
  memory.networks.add(`fp:${a.fingerprintHash}`, net);
  memory.members.add(`ip:${a.ipHash}`, a.index);
  memory.members.add(`ipfp:${a.ipHash}:${a.fingerprintHash}`, a.index);
  for (const c of HIGH_ENTROPY_COMPONENTS) {
    const h = a[`${c}Hash`];
    if (h !== null) memory.members.add(`${c}:${h}`, a.index);
  }
  if (a.tokenHash) memory.networks.add(`tok:${a.tokenHash}`, net);
  push(memory.byKey, `ip:${a.ipHash}`, a.index);
  push(memory.byKey, `fp:${a.fingerprintHash}`, a.index);
  push(memory.byKey, `net:${net}`, a.index);
  if (a.tokenHash) push(memory.byKey, `tok:${a.tokenHash}`, a.index);
  for (const c of HIGH_ENTROPY_COMPONENTS) if (a[`${c}Hash`] !== null) push(memory.byKey, `${c}:${a[`${c}Hash`]}`, a.index);
}

/** The anonymity counts the product's lookup gives scoring (uncapped here: every stored attempt is in memory). */
function productCounts(memory: Memory, x: StoredAttempt): AnonymityCounts {
  const members = (key: string) => memory.members.count(key);
  return {
    fingerprint: members(`fp:${x.fingerprintHash}`),
    fingerprintNetworks: memory.networks.count(`fp:${x.fingerprintHash}`),
    address: members(`ip:${x.ipHash}`),
    addressFingerprint: members(`ipfp:${x.ipHash}:${x.fingerprintHash}`),
    canvas: x.canvasHash === null ? 0 : members(`canvas:${x.canvasHash}`),
    webgl: x.webglHash === null ? 0 : members(`webgl:${x.webglHash}`),
    audio: x.audioHash === null ? 0 : members(`audio:${x.audioHash}`),
    fonts: x.fontsHash === null ? 0 : members(`fonts:${x.fontsHash}`),
    members: 0,
    browserTokenNetworks: x.tokenHash === null ? 0 : memory.networks.count(`tok:${x.tokenHash}`),
  };
}

function storedAttempts(population: Population): StoredAttempt[] {
  const ipKey = crypto.randomBytes(32);
  const tokenKey = crypto.randomBytes(32);
  return population.accounts.map((a) => {
    if (a.vpn)
      return {
        index: a.index,
        ipHash: null,
        networkHash: null,
        fingerprintHash: null,
        canvasHash: null,
        webglHash: null,
        audioHash: null,
        fontsHash: null,
        screenHash: null,
        timezoneHash: null,
        languageHash: null,
        platformHash: null,
        tokenHash: null,
      };
    const { ipHash, networkHash } = hashIp(ipKey, a.ip);
    const { hardwareHash: _hardware, ...components } = hashFingerprintComponents(a.fingerprint);
    const tokenHash = crypto.createHmac('sha256', tokenKey).update(a.profileToken).digest('hex');
    return {
      index: a.index,
      ipHash,
      networkHash,
      fingerprintHash: computeFingerprintHash(a.fingerprint),
      ...components,
      tokenHash,
      browserTokenHash: tokenHash,
      accountCreatedMs: a.createdMs,
      attemptedAtMs: a.atMs,
      stockProfile: looksStock(a.fingerprint),
    };
  });
}

/** The experiment's rules on the time between two attempts (not in the product: see SITTING_RULES). */
type SittingRule = 'address-fingerprint-same-sitting' | 'address-same-machine-same-sitting';
/** The experiment's private-window rules (not in the product: see noisedPrivateWindow). */
type NoiseRule = 'address-private-window' | 'address-private-window-alone';

/** One verdict of the replay, with the rule that decided it. */
export type RuledVerdict = PairVerdict & { rule: AltRule | SittingRule | NoiseRule };

/**
 * EXPERIMENT, not a product rule: a Safari or Firefox private window on one uncrowded address.
 * Those windows add per-session noise to the canvas and audio read-outs and leave the rest, so
 * the pair shows WebGL, fonts, screen, time zone, language and platform equal and canvas and
 * audio both different; two devices equal in all the rest would draw the same canvas. The
 * legitimate case: a household member's phone of the same model, one of the two in a private
 * window. '--noise' measures it as medium ('address-private-window'), and with a guard chosen
 * for that case ('address-private-window-alone'): medium only when the window matches exactly
 * one member on the address, since with two same-model phones there it cannot say whose it is.
 */
function noisedPrivateWindow(x: StoredAttempt, y: StoredAttempt, counts: AnonymityCounts): boolean {
  const equal = (k: 'webglHash' | 'fontsHash' | 'screenHash' | 'timezoneHash' | 'languageHash' | 'platformHash') =>
    x[k] !== null && x[k] === y[k];
  const differ = (k: 'canvasHash' | 'audioHash') => x[k] !== null && y[k] !== null && x[k] !== y[k];
  const uncrowded = Math.max(counts.address - 1, 0) <= RARITY.crowdedAddress;
  return (
    x.ipHash !== null &&
    x.ipHash === y.ipHash &&
    uncrowded &&
    differ('canvasHash') &&
    differ('audioHash') &&
    (['webglHash', 'fontsHash', 'screenHash', 'timezoneHash', 'languageHash', 'platformHash'] as const).every(equal)
  );
}

/**
 * EXPERIMENT, not product rules: the time between two attempts from one address (item "new
 * evidence"), as medium, tried on the pairs the product's rule leaves below medium. One
 * sitting is within the hour (SITTING_MS: an alt made to join alongside its main verifies
 * right after it); the rules are the two ways one device shows on one address when its
 * storage is gone: the same fingerprint (a fresh profile, a Chromium private window), or the
 * same machine settings and a device component (a second browser, a Safari or Firefox private
 * window). Chosen from what one device looks like, before measuring; the population's timing
 * (TIMING_ASSUMPTIONS) is a stated assumption, printed with its pessimistic variant.
 */
const SITTING_RULES: { rule: SittingRule; holds: (x: StoredAttempt, y: StoredAttempt) => boolean }[] = [
  { rule: 'address-fingerprint-same-sitting', holds: (x, y) => x.fingerprintHash === y.fingerprintHash },
  {
    rule: 'address-same-machine-same-sitting',
    holds: (x, y) =>
      (['screenHash', 'timezoneHash', 'languageHash', 'platformHash'] as const).every((k) => x[k] !== null && x[k] === y[k]) &&
      HIGH_ENTROPY_COMPONENTS.some((c) => x[`${c}Hash`] !== null && x[`${c}Hash`] === y[`${c}Hash`]),
  },
];

function sittingRule(population: Population, x: StoredAttempt, y: StoredAttempt): SittingRule | null {
  if (x.ipHash === null || x.ipHash !== y.ipHash) return null;
  if (Math.abs(population.accounts[x.index]!.atMs - population.accounts[y.index]!.atMs) >= SITTING_MS) return null;
  return SITTING_RULES.find((r) => r.holds(x, y))?.rule ?? null;
}

/**
 * Replays the population in time order; from `evaluateFrom` on, each new attempt is judged
 * by the product's `scoreCandidate` against every stored attempt the product's lookup
 * would read (the token, address, fingerprint, network, and a component at most two
 * members show), with the account ages and the server's size as the product sees them.
 */
export function replay(
  population: Population,
  evaluateFrom: number,
  options: { sitting?: boolean; noise?: 'any' | 'alone' } = {},
): { verdicts: RuledVerdict[]; attempts: StoredAttempt[] } {
  const attempts = storedAttempts(population);
  const memory: Memory = { members: new AnonymitySets(), networks: new AnonymitySets(), byKey: new Map() };
  const verdicts: RuledVerdict[] = [];
  for (const x of attempts) {
    const account = population.accounts[x.index]!;
    if (x.index >= evaluateFrom && x.fingerprintHash !== null) {
      const candidates = new Set<number>();
      const rare = HIGH_ENTROPY_COMPONENTS.filter(
        (c) => x[`${c}Hash`] !== null && memory.members.count(`${c}:${x[`${c}Hash`]}`) <= RARITY.rareComponentOthers + 1,
      ).map((c) => `${c}:${x[`${c}Hash`]}`);
      for (const key of [`ip:${x.ipHash}`, `fp:${x.fingerprintHash}`, `net:${x.networkHash}`, `tok:${x.tokenHash}`, ...rare])
        for (const i of memory.byKey.get(key) ?? []) candidates.add(i);
      // every earlier account is a member (VPN-flagged ones included), as the product's members table holds them
      const counts: AnonymityCounts = { ...productCounts(memory, x), members: Math.min(x.index, RARITY.membersToJudgeRarity) };
      // every stored account is its own member here, so the noised window's candidates are its members
      const noised = options.noise ? [...candidates].filter((i) => noisedPrivateWindow(x, attempts[i]!, counts)) : [];
      for (const i of candidates) {
        const y = attempts[i]!;
        const score = scoreCandidate(x, y, { sharedNetwork: false, counts, attemptAtMs: account.atMs });
        const below = score.confidence !== 'certain' && score.confidence !== 'medium';
        const sitting = options.sitting && below ? sittingRule(population, x, y) : null;
        const noise = below && noised.includes(i) && (options.noise === 'any' || noised.length === 1);
        if (sitting) verdicts.push({ a: y.index, b: x.index, confidence: 'medium', rule: sitting });
        else if (noise)
          verdicts.push({
            a: y.index,
            b: x.index,
            confidence: 'medium',
            rule: options.noise === 'any' ? 'address-private-window' : 'address-private-window-alone',
          });
        else if (score.confidence) verdicts.push({ a: y.index, b: x.index, confidence: score.confidence, rule: score.rule! });
      }
    }
    remember(memory, x);
  }
  return { verdicts, attempts };
}

/** Per rule: its links between one person's same-device accounts, other alts, and strangers (the best verdict per pair). */
function ruleTable(population: Population, verdicts: readonly RuledVerdict[]): string {
  const rank = { possible: 1, medium: 2, certain: 3 } as const;
  const best = new Map<string, RuledVerdict>();
  for (const v of verdicts) {
    const k = pairKey(v.a, v.b);
    const current = best.get(k);
    if (!current || rank[v.confidence] > rank[current.confidence]) best.set(k, v);
  }
  const rows = new Map<AltRule | SittingRule | NoiseRule, { tier: Tier; sameDevice: number; otherAlt: number; strangers: number }>();
  for (const v of best.values()) {
    const row = rows.get(v.rule) ?? { tier: v.confidence, sameDevice: 0, otherAlt: 0, strangers: 0 };
    const kind = pairKind(population.accounts[v.a]!, population.accounts[v.b]!);
    if (kind === null) row.strangers++;
    else if (SAME_DEVICE_KINDS.includes(kind)) row.sameDevice++;
    else row.otherAlt++;
    rows.set(v.rule, row);
  }
  const lines = ['  per rule (best verdict per pair): tier, same-device alts / other alts / strangers, precision'];
  for (const rule of [
    ...ALT_RULES,
    ...SITTING_RULES.map((r) => r.rule),
    'address-private-window',
    'address-private-window-alone',
  ] as const) {
    const row = rows.get(rule);
    if (row)
      lines.push(
        `    ${rule.padEnd(36)} ${row.tier.padEnd(8)} ${row.sameDevice} / ${row.otherAlt} / ${row.strangers}   ${pct((row.sameDevice + row.otherAlt) / (row.sameDevice + row.otherAlt + row.strangers))}`,
      );
  }
  return lines.join('\n');
}

/** The badge tier's figures (certain+medium) and the ceiling's bound at the same number of false links. */
function badgeSummary(
  population: Population,
  evaluateFrom: number,
  verdicts: readonly PairVerdict[],
  signature: CeilingSignature = 'product',
): string {
  const q = verdictQuality(population, verdicts, evaluateFrom);
  const badge = badgeTier(q);
  const ceiling = ceilingSummary(population, evaluateFrom, badge.falseLinks, 0.95, signature);
  return (
    `  badge tier (certain+medium): precision ${pct(badge.precision, 2)} (${badge.links - badge.falseLinks}/${badge.links}), ` +
    `${badge.falsePer10k.toFixed(1)} false alt badges per 10k legitimate members, same-device recall ${pct(q.sameDeviceRecall.share)} (${q.sameDeviceRecall.found}/${q.sameDeviceRecall.pairs}); ` +
    `any rule on the same evidence reaches at most ${pct(ceiling.atProductFalseLinks)} with as many false links; certain precision ${pct(q.tiers[0]!.precision, 2)}`
  );
}

/** Why the rule's verdicts go wrong: the rules of its false certain links, and what the missed same-device pairs share. */
function diagnose(population: Population, evaluateFrom: number, verdicts: readonly RuledVerdict[], attempts: StoredAttempt[]): string {
  const rank = { possible: 1, medium: 2, certain: 3 } as const;
  const best = new Map<string, Tier>();
  const falseCertain = new Map<string, number>();
  const person = (i: number) => population.accounts[i]!.personId;
  for (const v of verdicts) {
    const k = pairKey(v.a, v.b);
    if (!best.has(k) || rank[v.confidence] > rank[best.get(k)!]) best.set(k, v.confidence);
    if (v.confidence === 'certain' && person(v.a) !== person(v.b)) {
      const what = `${v.rule} (${population.accounts[v.a]!.venue}, same household: ${population.accounts[v.a]!.householdId === population.accounts[v.b]!.householdId})`;
      falseCertain.set(what, (falseCertain.get(what) ?? 0) + 1);
    }
  }
  const missed = new Map<string, number>();
  for (const pair of truePairs(population)) {
    if (Math.max(pair.a.index, pair.b.index) < evaluateFrom || !SAME_DEVICE_KINDS.includes(pair.kind)) continue;
    const tier = best.get(pairKey(pair.a.index, pair.b.index));
    if (tier === 'certain' || tier === 'medium') continue;
    const [x, y] = [attempts[pair.a.index]!, attempts[pair.b.index]!];
    const what = `${pair.kind}: ${x.ipHash === y.ipHash ? `same address (${pair.b.venue})` : 'moved address'}, ${x.fingerprintHash === y.fingerprintHash ? 'same fingerprint' : 'fingerprint differs'}`;
    missed.set(what, (missed.get(what) ?? 0) + 1);
  }
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `    ${n} × ${k}`)
      .join('\n');
  return `  false certain links by rule:\n${list(falseCertain)}\n  same-device pairs below medium:\n${list(missed)}`;
}

function main() {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  for (const accountAge of Object.keys(ACCOUNT_AGE_ASSUMPTIONS) as AccountAgeAssumption[]) {
    const population = generatePopulation({
      people: arg('--people', 25_000),
      seed: arg('--seed', 8),
      accountAge,
      timing: process.argv.includes('--sitting') ? accountAge : undefined,
    });
    const evaluateFrom = Math.max(0, population.accounts.length - arg('--scored', 3_000));
    process.stdout.write(
      `P8 replay, assumptions '${accountAge}': account ages ${JSON.stringify(ACCOUNT_AGE_ASSUMPTIONS[accountAge])}, timing ${JSON.stringify(TIMING_ASSUMPTIONS[accountAge])}: ${populationSummary(population)}\nscored: accounts ${evaluateFrom}–${population.accounts.length - 1}\n`,
    );
    const started = Date.now();
    const { verdicts, attempts } = replay(population, evaluateFrom);
    process.stdout.write(
      `${formatQuality("the product's scoreCandidate, every candidate (no 50-candidate window)", verdictQuality(population, verdicts, evaluateFrom))}\n`,
    );
    process.stdout.write(`${badgeSummary(population, evaluateFrom, verdicts)}\n${ruleTable(population, verdicts)}\n`);
    if (process.argv.includes('--sitting')) {
      const withSitting = replay(population, evaluateFrom, { sitting: true }).verdicts;
      process.stdout.write(
        `with the time between two attempts (experiment: SITTING_RULES as medium; the bound's signature adds "within the hour")\n`,
      );
      process.stdout.write(
        `${badgeSummary(population, evaluateFrom, withSitting, 'with-sitting')}\n${ruleTable(population, withSitting)}\n`,
      );
      for (const budget of [0, 100, 300])
        process.stdout.write(
          `  any rule with the time, ≤ ${budget} false links per 10k: at most ${pct(boundAt(population, evaluateFrom, budget))}\n`,
        );
    }
    if (process.argv.includes('--noise')) {
      for (const noise of ['any', 'alone'] as const) {
        const withNoise = replay(population, evaluateFrom, { noise }).verdicts;
        process.stdout.write(
          `with the private-window rule as medium (experiment, '${noise}': ${noise === 'any' ? 'every member it matches' : 'only when it matches one member on the address'})\n`,
        );
        process.stdout.write(`${badgeSummary(population, evaluateFrom, withNoise)}\n${ruleTable(population, withNoise)}\n`);
      }
    }
    if (process.argv.includes('--misses')) process.stdout.write(`${diagnose(population, evaluateFrom, verdicts, attempts)}\n`);
    process.stdout.write(`(replayed in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
    if (process.argv.includes('--ceiling')) process.stdout.write(`\n${ceilingReport(population, evaluateFrom, verdicts)}\n`);
    if (process.argv.includes('--gap')) process.stdout.write(`\n${gapReport(population, evaluateFrom, verdicts)}\n`);
    process.stdout.write('\n');
    if (process.argv.includes('--base-only')) break;
  }
}

/** The most same-device recall any rule reading the time as well reaches with `per10k` false links per 10k legitimate members. */
function boundAt(population: Population, evaluateFrom: number, per10k: number): number {
  const evidence = evidenceClasses(population, evaluateFrom, 'with-sitting');
  return recallCeiling(evidence.classes, evidence.sameDevicePairs, (per10k * evidence.people) / 10_000);
}

/**
 * The ceiling (p8-ceiling.ts) in detail: the most recall any rule reaches for a range of
 * false-link budgets, and the evidence classes of the same-device pairs the product's rule
 * (`today`, every candidate) leaves below medium, fewest strangers per alt first.
 */
function ceilingReport(population: Population, evaluateFrom: number, today: readonly PairVerdict[]): string {
  const found = new Set(today.filter((v) => v.confidence !== 'possible').map((v) => pairKey(v.a, v.b)));
  const missed = new Map<number, Map<string, number>>();
  const evidence = evidenceClasses(population, evaluateFrom, 'product', (newer, older, code) => {
    if (found.has(pairKey(newer.index, older.index))) return;
    const how = `${pairKind(older, newer)} ${newer.platform} ${newer.venue}${newer.ip === older.ip ? '' : ' (moved)'}`;
    const kinds = missed.get(code) ?? new Map<string, number>();
    kinds.set(how, (kinds.get(how) ?? 0) + 1);
    missed.set(code, kinds);
  });
  const per10k = evidence.people / 10_000;
  const lines = [
    `ceiling: ${evidence.pairs.toLocaleString('en')} pairs in ${evidence.classes.length} evidence classes; ${evidence.sameDevicePairs} same-device pairs; ${evidence.people} legitimate members`,
  ];
  for (const budget of [0, 100, 1_000, 5_000, 10_000, 20_000, 50_000])
    lines.push(
      `  ≤ ${budget} false links per 10k: at most ${pct(recallCeiling(evidence.classes, evidence.sameDevicePairs, budget * per10k))}`,
    );
  for (const share of [0.9, 0.95])
    lines.push(
      `  ${pct(share, 0)} needs at least ${(strangersNeeded(evidence.classes, evidence.sameDevicePairs, share) / per10k).toFixed(0)} false links per 10k`,
    );
  const classes = new Map(evidence.classes.map((c) => [c.code, c]));
  const rows = [...missed]
    .map(([code, kinds]) => ({ code, kinds, klass: classes.get(code)! }))
    .sort((a, b) => a.klass.strangers * b.klass.alts - b.klass.strangers * a.klass.alts);
  lines.push('  same-device pairs the rule leaves below medium, by evidence class (missed; alts and strangers in the class):');
  for (const { code, kinds, klass } of rows)
    lines.push(
      `    ${[...kinds.values()].reduce((a, b) => a + b, 0)}; ${klass.alts} / ${klass.strangers}: ${describeSignature(code, 'product')} [${[...kinds].map(([how, n]) => `${n} ${how}`).join(', ')}]`,
    );
  return lines.join('\n');
}

/** What a pair shares without the counts or the account's age: the family of evidence classes a rule reading no counts sees as one. */
function evidenceFamily(description: string): string {
  return description
    .replace(/^young account \+ /, '')
    .replace(/\([^)]*\)/g, '')
    .replace(/ \+ /g, '+');
}

/**
 * The gap between the badge tier and the bound: the classes the bound takes (fewest
 * strangers per alt first) within 0, 100 and 300 false links per 10k legitimate members, each
 * with how many of its alts (and strangers) the tier counts; then the classes' families (the
 * same shared values without counts or account age) with every pair of the family, taken or
 * not, which says whether a rule could take the class without its neighbours.
 */
function gapReport(population: Population, evaluateFrom: number, today: readonly PairVerdict[]): string {
  const inTier = new Set(today.filter((v) => v.confidence !== 'possible').map((v) => pairKey(v.a, v.b)));
  const counted = new Map<number, { alts: number; strangers: number }>();
  const count = (code: number, field: 'alts' | 'strangers') => {
    const row = counted.get(code) ?? { alts: 0, strangers: 0 };
    row[field]++;
    counted.set(code, row);
  };
  const evidence = evidenceClasses(
    population,
    evaluateFrom,
    'product',
    (newer, older, code) => inTier.has(pairKey(newer.index, older.index)) && count(code, 'alts'),
    (newer, older, code) => inTier.has(pairKey(newer.index, older.index)) && count(code, 'strangers'),
  );
  const per10k = evidence.people / 10_000;
  const budgets = [0, 100, 300];
  const takenAt = new Map<number, number>();
  let spent = 0;
  for (const c of byRatio(evidence.classes)) {
    const budget = budgets.find((b) => spent + c.strangers <= b * per10k);
    if (budget === undefined) break;
    spent += c.strangers;
    takenAt.set(c.code, budget);
  }
  const lines = [
    `gap: the classes the bound takes at 0 / 100 / 300 false links per 10k (${evidence.people} legitimate members, ${evidence.sameDevicePairs} same-device pairs), whole classes only`,
  ];
  for (const b of budgets) {
    const taken = evidence.classes.filter((c) => (takenAt.get(c.code) ?? Infinity) <= b);
    const alts = taken.reduce((n, c) => n + c.alts, 0);
    const tierAlts = taken.reduce((n, c) => n + (counted.get(c.code)?.alts ?? 0), 0);
    lines.push(
      `  ≤ ${b} per 10k: ${taken.length} classes, ${alts} alts (${pct(alts / evidence.sameDevicePairs)}), ${taken.reduce((n, c) => n + c.strangers, 0)} strangers; the tier counts ${tierAlts} of those alts, misses ${alts - tierAlts} in ${taken.filter((c) => (counted.get(c.code)?.alts ?? 0) < c.alts).length} classes`,
    );
  }
  lines.push(
    '  classes the bound takes that the tier does not count whole: taken at (per 10k) | alts | strangers | precision | tier counts (alts, strangers) | signature',
  );
  const gapRows = byRatio(evidence.classes).filter((c) => takenAt.has(c.code) && (counted.get(c.code)?.alts ?? 0) < c.alts);
  for (const c of gapRows) {
    const tier = counted.get(c.code) ?? { alts: 0, strangers: 0 };
    const counts = tier.alts === 0 ? 'no' : `part ${tier.alts}/${c.alts}`;
    lines.push(
      `    ${String(takenAt.get(c.code)).padStart(3)} | ${String(c.alts).padStart(4)} | ${String(c.strangers).padStart(5)} | ${pct(c.alts / (c.alts + c.strangers)).padStart(6)} | ${counts.padEnd(10)} ${tier.strangers ? `(${tier.strangers} strangers)` : ''} | ${describeSignature(c.code, 'product')}`,
    );
  }
  // the families of the gap's classes, over every class of the family
  const families = new Map<
    string,
    { alts: number; strangers: number; gapAlts: number; tierAlts: number; tierStrangers: number; classes: number }
  >();
  const gapFamilies = new Set(gapRows.map((c) => evidenceFamily(describeSignature(c.code, 'product'))));
  for (const c of evidence.classes) {
    const family = evidenceFamily(describeSignature(c.code, 'product'));
    if (!gapFamilies.has(family)) continue;
    const row = families.get(family) ?? { alts: 0, strangers: 0, gapAlts: 0, tierAlts: 0, tierStrangers: 0, classes: 0 };
    row.alts += c.alts;
    row.strangers += c.strangers;
    row.classes++;
    row.tierAlts += counted.get(c.code)?.alts ?? 0;
    row.tierStrangers += counted.get(c.code)?.strangers ?? 0;
    if (takenAt.has(c.code)) row.gapAlts += c.alts - (counted.get(c.code)?.alts ?? 0);
    families.set(family, row);
  }
  lines.push(
    '  the same gap by family (what the pair shares, without counts or account age), every class of the family: gap alts | alts | strangers | precision | tier counts (alts / strangers) | classes | family',
  );
  for (const [family, r] of [...families].sort((a, b) => b[1].gapAlts - a[1].gapAlts)) {
    lines.push(
      `    ${String(r.gapAlts).padStart(4)} | ${String(r.alts).padStart(4)} | ${String(r.strangers).padStart(7)} | ${pct(r.alts / (r.alts + r.strangers)).padStart(6)} | ${r.tierAlts} / ${r.tierStrangers} | ${r.classes} | ${family}`,
    );
  }
  return lines.join('\n');
}

if (require.main === module) main();
