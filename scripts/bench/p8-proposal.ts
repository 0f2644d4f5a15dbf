#!/usr/bin/env node
/**
 * EXPERIMENT (not product code): a rarity-weighted alt rule with a same-browser token,
 * measured on the P8 population against today's rule. Runs in memory, over the same
 * accounts and the same scored window as P8:
 *
 *   npx tsx scripts/bench/p8-proposal.ts [--people 25000] [--scored 4000] [--seed 8] [--first] [--ceiling]
 *
 * --ceiling adds the ceiling's budget table and the evidence classes of the pairs today's rule misses.
 *
 * Both rules see the signals exactly as the product stores them (keyed address hashes,
 * fingerprint hash, component hashes) and compare components with the product's own
 * `compareComponents`; "today" is the product's `scoreCandidate` (since adopted: the proposal, token included), over every candidate it
 * can flag (no 50-candidate window, so it differs from P8's in-product figures where
 * popular fingerprints crowd candidates out). The proposal adds what the product does not
 * know yet: the anonymity set of the fingerprint and of each high-entropy component (how
 * many other members, on how many networks, share it), how many members share the
 * address, and a first-party random browser token (kept as a keyed hash).
 */
import crypto from 'node:crypto';
import { compareComponents, HIGH_ENTROPY_COMPONENTS, RARITY, scoreCandidate, type AnonymityCounts, type AttemptSignals } from '../../src/modules/alts';
import { computeFingerprintHash, hashFingerprintComponents } from '../../src/modules/fingerprint';
import { hashIp } from '../../src/modules/network';
import { describeSignature, evidenceClasses, recallCeiling, strangersNeeded } from './p8-ceiling';
import { formatQuality, pairKey, pct, verdictQuality, type PairVerdict, type Tier } from './p8-metrics';
import { generatePopulation, pairKind, SAME_DEVICE_KINDS, truePairs, type Population } from './p8-population';
import { populationSummary } from './p8-verdicts';

type HighComponent = (typeof HIGH_ENTROPY_COMPONENTS)[number];

interface StoredAttempt extends AttemptSignals {
  index: number;
  /** keyed hash of the browser token; null for a Limited Access visit (nothing kept) */
  tokenHash: string | null;
}

/** The thresholds of the proposed rule. */
export interface RarityThresholds {
  /** same address + same fingerprint is certain when at most this many OTHER members show the fingerprint */
  certainFingerprintOthers: number;
  /** same fingerprint on different addresses is medium when at most this many other members show it */
  mediumFingerprintOthers: number;
  /** same address + same fingerprint is medium when at most this many other members on this address show it */
  mediumSameAddressOthers: number;
  /** an address is crowded (carrier NAT, campus, venue) above this many members: it alone proves nothing */
  crowdedAddress: number;
  /** a high-entropy component is rare when at most this many other members show it */
  rareComponentOthers: number;
  /** a token seen on more networks than this stops counting (a copied cookie) */
  tokenNetworks: number;
}

export const PROPOSED: RarityThresholds = { certainFingerprintOthers: 0, mediumFingerprintOthers: 2, mediumSameAddressOthers: 2, crowdedAddress: 10, rareComponentOthers: 1, tokenNetworks: 3 };

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
    browserTokenNetworks: x.tokenHash === null ? 0 : memory.networks.count(`tok:${x.tokenHash}`),
  };
}

/** Other members besides the candidate in an anonymity set (the new attempt is not stored yet). */
const othersThan = (memory: Memory, key: string, candidate: number) => memory.members.count(key) - (memory.members.has(key, candidate) ? 1 : 0);

/**
 * The proposed rule for one pair (new attempt x, stored candidate y). "Others" are the
 * members sharing a value besides x and y (x is not stored yet). A fingerprint is only as
 * rare as its rarest device component: the fingerprint hash includes the time zone and
 * language, so a popular phone in a rare locale has a rare hash while every component of
 * it is shared by hundreds.
 *
 *  certain  — the same browser token, seen on ≤ tokenNetworks networks; or the same address
 *             and the same fingerprint that no other member shows (≤ certainFingerprintOthers)
 *             with a high-entropy component at most `rareComponentOthers` other members show;
 *             or the same address and canvas + WebGL + audio equal, none shown by another member;
 *  medium   — the same address and the same fingerprint, ≤ mediumSameAddressOthers other members
 *             showing it on this address (one device, or a household's same-model phones); the
 *             same fingerprint on another address with a rare component (a device that moved);
 *             the same address and a rare high-entropy component plus one more equal component
 *             (a private window that noised canvas and audio keeps its fonts); on an uncrowded
 *             address (a home): a partial component match (today's medium), or screen, time
 *             zone, language and platform all equal (a second browser on the same machine);
 *  possible — an uncrowded address alone; a rare component on the same network;
 *  nothing  — a popular fingerprint or component across networks, a crowded address alone.
 */
export function proposedVerdict(memory: Memory, x: StoredAttempt, y: StoredAttempt, t: RarityThresholds): { tier: Tier; clause: string } | null {
  const verdict = (tier: Tier, clause: string) => ({ tier, clause });
  if (x.tokenHash !== null && x.tokenHash === y.tokenHash && memory.networks.count(`tok:${x.tokenHash}`) <= t.tokenNetworks) return verdict('certain', 'token');
  const sameIp = x.ipHash !== null && x.ipHash === y.ipHash;
  const sameNet = x.networkHash !== null && x.networkHash === y.networkHash;
  const sameFp = x.fingerprintHash !== null && x.fingerprintHash === y.fingerprintHash;
  const components = compareComponents(x, y);
  const componentOthers = (c: HighComponent) => (components[c] === true ? othersThan(memory, `${c}:${x[`${c}Hash`]}`, y.index) : Infinity);
  const rareComponent = (c: HighComponent) => componentOthers(c) <= t.rareComponentOthers;
  const anyRare = HIGH_ENTROPY_COMPONENTS.some(rareComponent);
  const fpOthers = sameFp ? othersThan(memory, `fp:${x.fingerprintHash}`, y.index) : Infinity;
  const highEqual = HIGH_ENTROPY_COMPONENTS.filter((c) => components[c] === true).length;
  const allEqual = Object.values(components).filter((v) => v === true).length;
  if (sameIp && sameFp && fpOthers <= t.certainFingerprintOthers && anyRare) return verdict('certain', 'address + rare fingerprint');
  if (sameIp && componentOthers('canvas') === 0 && componentOthers('webgl') === 0 && componentOthers('audio') === 0) return verdict('certain', 'address + rare canvas, webgl, audio');
  if (sameIp && sameFp && othersThan(memory, `ipfp:${x.ipHash}:${x.fingerprintHash}`, y.index) <= t.mediumSameAddressOthers) return verdict('medium', 'address + fingerprint few there');
  if (sameFp && fpOthers <= t.mediumFingerprintOthers && anyRare) return verdict('medium', 'rare fingerprint elsewhere');
  if (sameIp && anyRare && allEqual >= 2) return verdict('medium', 'address + rare component');
  const crowded = sameIp && othersThan(memory, `ip:${x.ipHash}`, y.index) > t.crowdedAddress;
  if (sameIp && !crowded && highEqual >= 1 && allEqual >= 2) return verdict('medium', 'home address + partial');
  if (sameIp && !crowded && components.screen && components.timezone && components.language && components.platform) return verdict('medium', 'home address + same machine settings');
  if (sameIp && !crowded) return verdict('possible', 'home address');
  if ((sameIp || sameNet) && anyRare) return verdict('possible', 'network + rare component');
  return null;
}

function storedAttempts(population: Population): StoredAttempt[] {
  const ipKey = crypto.randomBytes(32);
  const tokenKey = crypto.randomBytes(32);
  return population.accounts.map((a) => {
    if (a.vpn) return { index: a.index, ipHash: null, networkHash: null, fingerprintHash: null, canvasHash: null, webglHash: null, audioHash: null, fontsHash: null, screenHash: null, timezoneHash: null, languageHash: null, platformHash: null, tokenHash: null };
    const { ipHash, networkHash } = hashIp(ipKey, a.ip);
    const { hardwareHash: _hardware, ...components } = hashFingerprintComponents(a.fingerprint);
    const tokenHash = crypto.createHmac('sha256', tokenKey).update(a.profileToken).digest('hex');
    return { index: a.index, ipHash, networkHash, fingerprintHash: computeFingerprintHash(a.fingerprint), ...components, tokenHash, browserTokenHash: tokenHash };
  });
}

/**
 * Replays the population in time order; from `evaluateFrom` on, each new attempt is judged
 * against every stored attempt that shares its token, address, fingerprint or network, by
 * today's rule and by the proposed one (best tier per pair).
 */
export function replay(population: Population, evaluateFrom: number, thresholds: RarityThresholds[]): { today: PairVerdict[]; proposed: (PairVerdict & { clause: string })[][]; attempts: StoredAttempt[] } {
  const attempts = storedAttempts(population);
  const memory: Memory = { members: new AnonymitySets(), networks: new AnonymitySets(), byKey: new Map() };
  const today: PairVerdict[] = [];
  const proposed: (PairVerdict & { clause: string })[][] = thresholds.map(() => []);
  for (const x of attempts) {
    if (x.index >= evaluateFrom && x.fingerprintHash !== null) {
      const candidates = new Set<number>();
      // as the product's lookup: the token, address, fingerprint and network, and a component at most two members show, on any network
      const rare = HIGH_ENTROPY_COMPONENTS.filter((c) => x[`${c}Hash`] !== null && memory.members.count(`${c}:${x[`${c}Hash`]}`) <= RARITY.rareComponentOthers + 1).map((c) => `${c}:${x[`${c}Hash`]}`);
      for (const key of [`ip:${x.ipHash}`, `fp:${x.fingerprintHash}`, `net:${x.networkHash}`, `tok:${x.tokenHash}`, ...rare]) for (const i of memory.byKey.get(key) ?? []) candidates.add(i);
      for (const i of candidates) {
        const y = attempts[i]!;
        const score = scoreCandidate(x, y, { sharedNetwork: false, counts: productCounts(memory, x) });
        if (score.confidence) today.push({ a: y.index, b: x.index, confidence: score.confidence });
        thresholds.forEach((t, k) => {
          const found = proposedVerdict(memory, x, y, t);
          if (found) proposed[k]!.push({ a: y.index, b: x.index, confidence: found.tier, clause: found.clause });
        });
      }
    }
    remember(memory, x);
  }
  return { today, proposed, attempts };
}

/** Why the proposal's verdicts go wrong: the clauses of its false certain links, and what the missed same-device pairs share. */
function diagnose(population: Population, evaluateFrom: number, verdicts: (PairVerdict & { clause: string })[], attempts: StoredAttempt[]): string {
  const rank = { possible: 1, medium: 2, certain: 3 } as const;
  const best = new Map<string, Tier>();
  const falseCertain = new Map<string, number>();
  const person = (i: number) => population.accounts[i]!.personId;
  for (const v of verdicts) {
    const k = pairKey(v.a, v.b);
    if (!best.has(k) || rank[v.confidence] > rank[best.get(k)!]) best.set(k, v.confidence);
    if (v.confidence === 'certain' && person(v.a) !== person(v.b)) {
      const what = `${v.clause} (${population.accounts[v.a]!.venue}, same household: ${population.accounts[v.a]!.householdId === population.accounts[v.b]!.householdId})`;
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
  const list = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, n]) => `    ${n} × ${k}`).join('\n');
  return `  false certain links by clause:\n${list(falseCertain)}\n  same-device pairs below medium:\n${list(missed)}`;
}

function main() {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const population = generatePopulation({ people: arg('--people', 25_000), seed: arg('--seed', 8) });
  const evaluateFrom = Math.max(0, population.accounts.length - arg('--scored', 4_000));
  process.stdout.write(`P8 proposal experiment: ${populationSummary(population)}\nscored: accounts ${evaluateFrom}–${population.accounts.length - 1}\n\n`);
  const only = process.argv.includes('--first');
  const variants: [string, RarityThresholds][] = [
    ['proposed', PROPOSED],
    ['proposed, rare component ≤ 3 others', { ...PROPOSED, rareComponentOthers: 3 }],
    ['proposed, same-address medium ≤ 5 others', { ...PROPOSED, mediumSameAddressOthers: 5 }],
    ['proposed, no token (fresh profiles only)', { ...PROPOSED, tokenNetworks: -1 }],
  ];
  if (only) variants.splice(1);
  const started = Date.now();
  const { today, proposed, attempts } = replay(population, evaluateFrom, variants.map(([, t]) => t));
  process.stdout.write(`${formatQuality("the product's scoreCandidate (rarity-weighted, with the token), every candidate (no 50-candidate window)", verdictQuality(population, today, evaluateFrom))}\n\n`);
  variants.forEach(([label, t], k) => process.stdout.write(`${formatQuality(`${label}: ${JSON.stringify(t)}`, verdictQuality(population, proposed[k]!, evaluateFrom))}\n${k === 0 ? `${diagnose(population, evaluateFrom, proposed[0]!, attempts)}\n` : ''}\n`));
  process.stdout.write(`(replayed in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  if (process.argv.includes('--ceiling')) process.stdout.write(`\n${ceilingReport(population, evaluateFrom, today)}\n`);
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
  const lines = [`ceiling: ${evidence.pairs.toLocaleString('en')} pairs in ${evidence.classes.length} evidence classes; ${evidence.sameDevicePairs} same-device pairs; ${evidence.people} legitimate members`];
  for (const budget of [0, 100, 1_000, 5_000, 10_000, 20_000, 50_000]) lines.push(`  ≤ ${budget} false links per 10k: at most ${pct(recallCeiling(evidence.classes, evidence.sameDevicePairs, budget * per10k))}`);
  for (const share of [0.9, 0.95]) lines.push(`  ${pct(share, 0)} needs at least ${(strangersNeeded(evidence.classes, evidence.sameDevicePairs, share) / per10k).toFixed(0)} false links per 10k`);
  const classes = new Map(evidence.classes.map((c) => [c.code, c]));
  const rows = [...missed].map(([code, kinds]) => ({ code, kinds, klass: classes.get(code)! })).sort((a, b) => a.klass.strangers * b.klass.alts - b.klass.strangers * a.klass.alts);
  lines.push('  same-device pairs the rule leaves below medium, by evidence class (missed; alts and strangers in the class):');
  for (const { code, kinds, klass } of rows) lines.push(`    ${[...kinds.values()].reduce((a, b) => a + b, 0)}; ${klass.alts} / ${klass.strangers}: ${describeSignature(code, 'product')} [${[...kinds].map(([how, n]) => `${n} ${how}`).join(', ')}]`);
  return lines.join('\n');
}

if (require.main === module) main();
