import { COMPARED_COMPONENTS, HIGH_ENTROPY_COMPONENTS, RARITY } from '../../src/modules/alts';
import { computeFingerprintHash } from '../../src/modules/fingerprint';
import { STORED_FINGERPRINT_COMPONENTS } from '../../src/shared/fingerprint';
import { SAME_DEVICE_KINDS, SITTING_MS, generatePopulation, pairKind, type BenchAccount, type Population } from './p8-population';
import { DAY_MS } from '../../src/shared/durations';

/**
 * How far ANY rule could go on P8's population: an upper bound on same-device recall for a
 * given number of false links, whatever the rule, as long as it decides a pair from the
 * evidence scoring has.
 *
 * Every pair (a scored attempt, an earlier stored one) gets its evidence signature: which
 * values the two share — browser token, address, /24 network, fingerprint, each compared
 * component —, whether the newer account is young (created at most RARITY.youngAccountDays
 * before it verifies, and after the other account), and, for each shared value, how many other members show it (bucketed as the
 * product's capped counts see them: 0, 1, 2, 3–5, 6–10, 11–63, 64 or more). A rule is a
 * function of the signature, so it links every pair of a signature or none of them. Pairs
 * with one signature form a class: its same-device alts (what recall counts) and its
 * strangers (false links). Taking classes best ratio first, with the last one taken in
 * part, is the linear relaxation of choosing classes under a false-link budget; its recall
 * is at least what any choice of whole classes — any rule — reaches.
 *
 * Two signatures:
 *  - 'product': what scoring reads today (counts for the address, the fingerprint, the
 *    address+fingerprint pair and the four high-entropy components; screen, time zone,
 *    language and platform only equal or not);
 *  - 'every-count': also how many members show each low-entropy component and the hardware
 *    read-out — evidence the product does not count, to show that counting it would not
 *    change the answer;
 *  - 'with-sitting': 'product' plus whether the two attempts were made within the hour of each
 *    other (SITTING_MS; the experiment in p8-proposal.ts, on a population generated with a
 *    timing assumption);
 *  - 'with-timing': 'with-sitting' plus whether the newer account was created after the other
 *    member verified (its snowflake against the stored attempt's time; p8-evidence.ts).
 */

export type CeilingSignature = 'product' | 'every-count' | 'with-sitting' | 'with-timing';

export interface EvidenceClass {
  /** the signature, as `describeSignature` reads it */
  code: number;
  /** same-device alt pairs with this signature */
  alts: number;
  /** pairs of different people with this signature */
  strangers: number;
}

export interface EvidenceClasses {
  classes: EvidenceClass[];
  /** same-device pairs the scored window holds (the recall denominator, as P8 counts it) */
  sameDevicePairs: number;
  /** legitimate members of the window: first accounts scored (P8's "per 10k" base) */
  people: number;
  /** pairs looked at */
  pairs: number;
}

/** The bucket a count of other members falls in, as capped counts (at most 63 others told apart) see it. */
export function countBucket(others: number): number {
  if (others <= 2) return Math.max(others, 0);
  if (others <= 5) return 3;
  if (others <= 10) return 4;
  if (others <= 63) return 5;
  return 6;
}
const BUCKETS = 7;

/**
 * The highest share of `total` alt pairs any choice of classes links with at most
 * `falseBudget` strangers linked (linear relaxation: an upper bound on every rule).
 */
export function recallCeiling(classes: readonly EvidenceClass[], total: number, falseBudget: number): number {
  let found = 0;
  let budget = falseBudget;
  for (const c of byRatio(classes)) {
    if (c.strangers <= budget) {
      found += c.alts;
      budget -= c.strangers;
    } else {
      found += (c.alts * budget) / c.strangers;
      break;
    }
  }
  return total ? Math.min(found / total, 1) : Number.NaN;
}

/** The fewest strangers any rule must link to find `share` of `total` alt pairs (a lower bound; Infinity when no rule can). */
export function strangersNeeded(classes: readonly EvidenceClass[], total: number, share: number): number {
  let need = share * total;
  let strangers = 0;
  for (const c of byRatio(classes)) {
    if (need <= 0) break;
    const take = Math.min(1, need / c.alts);
    strangers += take * c.strangers;
    need -= take * c.alts;
  }
  return need > 1e-9 ? Infinity : strangers;
}

/** Classes holding alts, fewest strangers per alt first (the order the bound takes them in). */
export function byRatio(classes: readonly EvidenceClass[]): EvidenceClass[] {
  return classes.filter((c) => c.alts > 0).sort((a, b) => a.strangers * b.alts - b.strangers * a.alts);
}

/**
 * The bound's own choice of classes read on another population of the same model: the whole
 * classes the bound takes on `fitted` (fewest strangers per alt first) within
 * `falsePer10k` false links per 10,000 legitimate members are looked up in `held` (another
 * seed), and their recall and false links read there. It is what the bound's lookup table, a
 * rule learnt from one population, finds on the next: the part of the bound that is the
 * population cut fine (classes of a few pairs with no stranger) does not carry over. A class
 * `held` has and `fitted` lacks is not taken.
 */
export function heldOutChoice(
  fitted: EvidenceClasses,
  held: EvidenceClasses,
  falsePer10k: number,
): { recall: number; falsePer10k: number } {
  const budget = (falsePer10k * fitted.people) / 10_000;
  const taken = new Set<number>();
  let spent = 0;
  for (const c of byRatio(fitted.classes)) {
    if (spent + c.strangers > budget) continue;
    spent += c.strangers;
    taken.add(c.code);
  }
  const chosen = held.classes.filter((c) => taken.has(c.code));
  return {
    recall: held.sameDevicePairs ? chosen.reduce((n, c) => n + c.alts, 0) / held.sameDevicePairs : Number.NaN,
    falsePer10k: held.people ? (chosen.reduce((n, c) => n + c.strangers, 0) / held.people) * 10_000 : Number.NaN,
  };
}

/** Interns values as small integers so that a pair is compared with integer equality. */
class Interner {
  private readonly ids = new Map<string, number>();
  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) this.ids.set(value, (id = this.ids.size + 1));
    return id;
  }
}

/** A count per interned value, and the distinct networks per value, of the attempts stored so far. */
class Tally {
  private readonly members = new Map<number, number>();
  private readonly networks = new Map<number, Set<number>>();
  add(value: number, network?: number) {
    this.members.set(value, (this.members.get(value) ?? 0) + 1);
    if (network !== undefined) {
      let set = this.networks.get(value);
      if (!set) this.networks.set(value, (set = new Set()));
      set.add(network);
    }
  }
  count(value: number): number {
    return this.members.get(value) ?? 0;
  }
  networksOf(value: number): number {
    return this.networks.get(value)?.size ?? 0;
  }
}

const DIMENSIONS = STORED_FINGERPRINT_COMPONENTS;
const HIGH = new Set<string>(HIGH_ENTROPY_COMPONENTS);
const COMPARED = new Set<string>(COMPARED_COMPONENTS);

/**
 * Every pair of a scored attempt (position ≥ `evaluateFrom`) with an earlier stored one,
 * grouped by evidence signature. VPN-flagged visits keep no evidence and take no part, as
 * in the product.
 */
export function evidenceClasses(
  population: Population,
  evaluateFrom: number,
  signature: CeilingSignature,
  onAlt?: (newer: BenchAccount, older: BenchAccount, code: number) => void,
  onStranger?: (newer: BenchAccount, older: BenchAccount, code: number) => void,
): EvidenceClasses {
  const values = new Interner();
  const seen = population.accounts.filter((a) => !a.vpn);
  const n = seen.length;
  const ip = new Int32Array(n);
  const net = new Int32Array(n);
  const fp = new Int32Array(n);
  const ipFp = new Int32Array(n);
  const token = new Int32Array(n);
  const created = new Float64Array(n);
  const at = new Float64Array(n);
  const young = new Uint8Array(n);
  const component = DIMENSIONS.map(() => new Int32Array(n));
  seen.forEach((a, i) => {
    ip[i] = values.id(`ip:${a.ip}`);
    net[i] = values.id(`net:${networkOf(a)}`);
    const fingerprintHash = computeFingerprintHash(a.fingerprint);
    fp[i] = values.id(`fp:${fingerprintHash}`);
    ipFp[i] = values.id(`ipfp:${a.ip}|${fingerprintHash}`);
    token[i] = values.id(`token:${a.profileToken}`);
    created[i] = a.createdMs;
    at[i] = a.atMs;
    young[i] = a.atMs - a.createdMs <= RARITY.youngAccountDays * DAY_MS ? 1 : 0;
    DIMENSIONS.forEach((d, k) => (component[k]![i] = values.id(`${d}:${a.fingerprint[d]}`)));
  });
  // which dimensions enter the signature, and whether their counts do
  const used = DIMENSIONS.map((d) => signature === 'every-count' || COMPARED.has(d));
  const counted = DIMENSIONS.map((d) => signature === 'every-count' || HIGH.has(d));

  const tallies = { ip: new Tally(), fp: new Tally(), ipFp: new Tally(), token: new Tally(), component: DIMENSIONS.map(() => new Tally()) };
  const classes = new Map<number, EvidenceClass>();
  let sameDevicePairs = 0;
  let pairs = 0;
  const scoredFirst = seen.findIndex((a) => a.index >= evaluateFrom);
  for (let x = 0; x < n; x++) {
    if (scoredFirst >= 0 && x >= scoredFirst) {
      const ax = seen[x]!;
      // the attempt's counts, as "others besides the candidate" when the candidate shares the value
      const addressBucket = 1 + countBucket(tallies.ip.count(ip[x]!) - 1);
      const fpBucket = 1 + countBucket(tallies.fp.count(fp[x]!) - 1);
      const fpNetworksBucket = countBucket(tallies.fp.networksOf(fp[x]!));
      const ipFpBucket = countBucket(tallies.ipFp.count(ipFp[x]!) - 1);
      const tokenBucket = 1 + Math.min(tallies.token.networksOf(token[x]!), 4);
      const componentBuckets = DIMENSIONS.map((_, k) =>
        counted[k] ? 2 + countBucket(tallies.component[k]!.count(component[k]![x]!) - 1) : 2,
      );
      for (let y = 0; y < x; y++) {
        const sameIp = ip[y] === ip[x];
        const sameFp = fp[y] === fp[x];
        const timed = signature === 'with-sitting' || signature === 'with-timing';
        let code =
          (signature === 'with-timing' && created[x]! > at[y]! ? 4 : 0) +
          (timed && at[x]! - at[y]! < SITTING_MS ? 2 : 0) +
          (young[x] === 1 && created[x]! > created[y]! ? 1 : 0);
        code = code * 6 + (token[y] === token[x] ? tokenBucket : 0);
        code = code * (BUCKETS + 1) + (sameIp ? addressBucket : 0);
        code = code * 2 + (net[y] === net[x] ? 1 : 0);
        code = code * (BUCKETS + 1) + (sameFp ? fpBucket : 0);
        code = code * BUCKETS + (sameFp ? fpNetworksBucket : 0);
        code = code * BUCKETS + (sameIp && sameFp ? ipFpBucket : 0);
        for (let k = 0; k < DIMENSIONS.length; k++) {
          if (!used[k]) continue;
          code = code * (BUCKETS + 2) + (component[k]![y] === component[k]![x] ? componentBuckets[k]! : 1);
        }
        const ay = seen[y]!;
        const kind = pairKind(ay, ax);
        const entry = classes.get(code) ?? { code, alts: 0, strangers: 0 };
        if (kind === null) {
          entry.strangers++;
          onStranger?.(ax, ay, code);
        } else if (SAME_DEVICE_KINDS.includes(kind)) {
          entry.alts++;
          sameDevicePairs++;
          onAlt?.(ax, ay, code);
        } else continue;
        classes.set(code, entry);
        pairs++;
      }
    }
    tallies.ip.add(ip[x]!);
    tallies.fp.add(fp[x]!, net[x]);
    tallies.ipFp.add(ipFp[x]!);
    tallies.token.add(token[x]!, net[x]);
    DIMENSIONS.forEach((_, k) => tallies.component[k]!.add(component[k]![x]!));
  }
  const people = population.accounts.filter((a) => a.kind === 'first' && a.index >= evaluateFrom).length;
  return { classes: [...classes.values()], sameDevicePairs, people, pairs };
}

/** The /24 of an IPv4 address (the population's addresses are all IPv4). */
function networkOf(account: BenchAccount): string {
  return account.ip.split('.').slice(0, 3).join('.');
}

const BUCKET_NAMES = ['0', '1', '2', '3-5', '6-10', '11-63', '64+'];

/** A signature in words: what the pair shares, with how many other members show each shared value. */
export function describeSignature(code: number, signature: CeilingSignature): string {
  const used = DIMENSIONS.filter((d) => signature === 'every-count' || COMPARED.has(d));
  const parts: string[] = [];
  let rest = code;
  const take = (radix: number) => {
    const digit = rest % radix;
    rest = Math.floor(rest / radix);
    return digit;
  };
  const shared: string[] = [];
  for (const d of [...used].reverse()) {
    const digit = take(BUCKETS + 2);
    if (digit >= 2) shared.unshift(signature === 'every-count' || HIGH.has(d) ? `${d}(${BUCKET_NAMES[digit - 2]})` : d);
  }
  const ipFp = take(BUCKETS);
  const fpNetworks = take(BUCKETS);
  const fpDigit = take(BUCKETS + 1);
  const netDigit = take(2);
  const ipDigit = take(BUCKETS + 1);
  const tokenDigit = take(6);
  if (rest & 4) parts.push('created after the other verified');
  if (rest & 2) parts.push('within the hour');
  if (rest & 1) parts.push('young account');
  if (tokenDigit) parts.push(`token(${tokenDigit - 1} networks)`);
  if (ipDigit) parts.push(`address(${BUCKET_NAMES[ipDigit - 1]})`);
  else if (netDigit) parts.push('network');
  if (fpDigit)
    parts.push(
      `fingerprint(${BUCKET_NAMES[fpDigit - 1]}, ${BUCKET_NAMES[fpNetworks]} networks${ipDigit ? `, ${BUCKET_NAMES[ipFp]} here` : ''})`,
    );
  parts.push(...shared);
  return parts.join(' + ') || 'nothing';
}

/**
 * The 'product' classes of a population and window, computed once: P8 measures each engine
 * on its own copy of the same generated population (same seed and size), and the classes
 * depend on the population alone, not on the engine (~25 s at full size).
 */
const productClasses = new Map<string, EvidenceClasses>();
function productClassesOf(population: Population, evaluateFrom: number, signature: CeilingSignature): EvidenceClasses {
  const key = `${signature}:${population.seed}:${population.people}:${population.accounts.length}:${population.accounts.at(-1)?.atMs ?? 0}:${evaluateFrom}`;
  let evidence = productClasses.get(key);
  if (!evidence) productClasses.set(key, (evidence = evidenceClasses(population, evaluateFrom, signature)));
  return evidence;
}

/** The false-link budgets (per 10,000 legitimate members) the bound is printed at beside the product's own: up to the badge tier's limit. */
const CEILING_BUDGETS_PER_10K = [100, 300] as const;

export interface CeilingSummary {
  /** the most same-device recall any rule on the product's evidence reaches with no more false links than the product made */
  atProductFalseLinks: number;
  /** the same at more false links: the most recall for each of CEILING_BUDGETS_PER_10K false links per 10k legitimate members */
  atBudgets: { per10k: number; recall: number }[];
  /** the fewest false links per 10,000 legitimate members any such rule needs for `target` recall (Infinity: none reaches it) */
  neededPer10k: number;
  productFalsePer10k: number;
  classes: number;
  pairs: number;
}

/**
 * The ceiling beside the product's own figures: `productFalseLinks` is the number of links
 * at certain or medium the product made between different people in the same window.
 */
export function ceilingSummary(
  population: Population,
  evaluateFrom: number,
  productFalseLinks: number,
  target: number,
  signature: CeilingSignature = 'product',
): CeilingSummary {
  const evidence = productClassesOf(population, evaluateFrom, signature);
  const per10k = (links: number) => (evidence.people ? (links / evidence.people) * 10_000 : Number.NaN);
  return {
    atProductFalseLinks: recallCeiling(evidence.classes, evidence.sameDevicePairs, productFalseLinks),
    atBudgets: CEILING_BUDGETS_PER_10K.map((per10k) => ({
      per10k,
      recall: recallCeiling(evidence.classes, evidence.sameDevicePairs, (per10k * evidence.people) / 10_000),
    })),
    neededPer10k: per10k(strangersNeeded(evidence.classes, evidence.sameDevicePairs, target)),
    productFalsePer10k: per10k(productFalseLinks),
    classes: evidence.classes.length,
    pairs: evidence.pairs,
  };
}

/**
 * The bound's choice of classes at the product's false links, read on another population of
 * the same model and size (the next seed, the same scored window): `heldOutChoice` each way
 * (chosen here and read there, chosen there and read here).
 */
export function heldOutSummary(
  population: Population,
  evaluateFrom: number,
  productFalseLinks: number,
): { seed: number; readThere: { recall: number; falsePer10k: number }; readHere: { recall: number; falsePer10k: number } } {
  const here = productClassesOf(population, evaluateFrom, 'product');
  const other = generatePopulation({ people: population.people, seed: population.seed + 1 });
  const there = productClassesOf(other, Math.max(0, other.accounts.length - (population.accounts.length - evaluateFrom)), 'product');
  const per10k = here.people ? (productFalseLinks / here.people) * 10_000 : 0;
  return { seed: other.seed, readThere: heldOutChoice(here, there, per10k), readHere: heldOutChoice(there, here, per10k) };
}
