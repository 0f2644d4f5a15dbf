#!/usr/bin/env node
/**
 * EXPERIMENT (not product code): evidence the product already holds or can derive without
 * collecting anything new, each tried as an extra medium rule over the pairs the product's
 * rule (replayed in memory, p8-proposal.ts) leaves below medium, under the stated assumptions
 * of p8-population.ts ('base', then 'pessimistic': ACCOUNT_AGE_ASSUMPTIONS and
 * TIMING_ASSUMPTIONS together), and the badge tier's bound at more false links:
 *
 *   npx tsx scripts/bench/p8-evidence.ts [--people 25000] [--scored 3000] [--seed 8] [--holdout-seed 9] [--base-only]
 *
 * The rules' thresholds come from the assumptions, never from the population: "young" is
 * RARITY.youngAccountDays (an account made to be an alt is made when it is needed), "one
 * sitting" is SITTING_MS (an alt made to join beside its main), "created after the other
 * verified" needs no threshold (the snowflake's time against the stored attempt's). Every rule
 * asks for the same uncrowded address (at most RARITY.crowdedAddress others) and one device:
 * the same fingerprint, or the same machine settings and a device component.
 *
 * Evidence judged without a run, because P8's model already decides it (see the README):
 * Discord's locale (the client language, in /users/@me) is set from the browser's language
 * when the account is made, and P8's households share one locale, so it equals the
 * fingerprint's language component for an alt and for a sibling alike; the browser token's
 * history cannot reach the pairs left, which by definition carry different tokens.
 */
import { HIGH_ENTROPY_COMPONENTS, RARITY, isYoungAccount, ALT_RULES, type AltRule } from '../../src/modules/alts';
import { evidenceClasses, heldOutChoice, recallCeiling, type CeilingSignature, type EvidenceClasses } from './p8-ceiling';
import { badgeTier, pairKey, pct, verdictQuality, type PairVerdict } from './p8-metrics';
import {
  ACCOUNT_AGE_ASSUMPTIONS,
  SAME_DEVICE_KINDS,
  SITTING_MS,
  TIMING_ASSUMPTIONS,
  generatePopulation,
  pairKind,
  truePairs,
  type AccountAgeAssumption,
  type Population,
} from './p8-population';
import { replay, type RuledVerdict } from './p8-proposal';
import { DAY_MS } from '../../src/shared/durations';

type Attempt = ReturnType<typeof replay>['attempts'][number];

/** What a pair of one address shows beyond the product's evidence: the account's age and the two times. */
interface PairFacts {
  sameFingerprint: boolean;
  sameMachine: boolean;
  /** no member besides the candidate shows the fingerprint on this address */
  oneDeviceHere: boolean;
  young: boolean;
  createdAfterOther: boolean;
  sitting: boolean;
}

const EVIDENCE_RULES: { name: string; holds: (f: PairFacts) => boolean }[] = [
  { name: 'young account, the one device here', holds: (f) => f.young && f.sameFingerprint && f.oneDeviceHere },
  {
    name: 'created after the other verified, the one device here',
    holds: (f) => f.createdAfterOther && f.sameFingerprint && f.oneDeviceHere,
  },
  { name: 'within the hour, same fingerprint', holds: (f) => f.sitting && f.sameFingerprint },
  { name: 'young and within the hour, one machine', holds: (f) => f.young && f.sitting && (f.sameFingerprint || f.sameMachine) },
];

/** Same-address pairs of a scored attempt with an earlier one, with their facts (VPN-flagged visits keep nothing). */
function addressPairs(population: Population, attempts: readonly Attempt[], evaluateFrom: number) {
  const byIp = new Map<string, number[]>();
  const onAddress = new Map<string, number>();
  const pairs: { x: number; y: number; facts: PairFacts }[] = [];
  for (const x of attempts) {
    if (x.ipHash === null) continue;
    const here = byIp.get(x.ipHash) ?? [];
    const account = population.accounts[x.index]!;
    if (x.index >= evaluateFrom && here.length - 1 <= RARITY.crowdedAddress) {
      const deviceHere = onAddress.get(`${x.ipHash}:${x.fingerprintHash}`) ?? 0;
      for (const i of here) {
        const y = attempts[i]!;
        const other = population.accounts[i]!;
        const sameFingerprint = x.fingerprintHash === y.fingerprintHash;
        const sameMachine =
          (['screenHash', 'timezoneHash', 'languageHash', 'platformHash'] as const).every((k) => x[k] !== null && x[k] === y[k]) &&
          HIGH_ENTROPY_COMPONENTS.some((c) => x[`${c}Hash`] !== null && x[`${c}Hash`] === y[`${c}Hash`]);
        pairs.push({
          x: x.index,
          y: i,
          facts: {
            sameFingerprint,
            sameMachine,
            oneDeviceHere: sameFingerprint && deviceHere - 1 === 0,
            young: isYoungAccount(x, y, account.atMs),
            createdAfterOther: account.createdMs > other.atMs,
            sitting: account.atMs - other.atMs < SITTING_MS,
          },
        });
      }
    }
    here.push(x.index);
    byIp.set(x.ipHash, here);
    const key = `${x.ipHash}:${x.fingerprintHash}`;
    onAddress.set(key, (onAddress.get(key) ?? 0) + 1);
  }
  return pairs;
}

/**
 * IPv6's own addresses, an estimate (P8's addresses are all IPv4): on IPv6 every device has
 * its own address, and privacy extensions give it a new one for new connections once a day
 * (TEMP_PREFERRED_LIFETIME, 86,400 s in Linux's include/net/addrconf.h; RFC 8981), so one
 * address and one fingerprint within the day are one device, which a sibling's same-model phone
 * on the household's /64 never shows. Counted: the same-device pairs below medium that came from
 * one place (P8's same address), each weighted by the chance the address had not rotated
 * between the two attempts (1 − gap / day, the rotation's phase unknown), times the share of
 * visitors on IPv6: Google's 50% (base) or APNIC Labs' 42% (pessimistic), both as of April 2026
 * (https://blog.apnic.net/2026/04/28/google-hits-50-ipv6/). No stranger is counted (a NAT66
 * household would be one). It says nothing of what IPv6 takes away from the address rules for
 * pairs more than a day apart, which would then share only the /64.
 */
const IPV6_SHARE = { base: 0.5, pessimistic: 0.42 } as const;
function ipv6Reach(population: Population, evaluateFrom: number, inTier: ReadonlySet<string>): { pairs: number; expected: number } {
  let pairs = 0;
  let expected = 0;
  for (const pair of truePairs(population)) {
    const [older, newer] = pair.a.index < pair.b.index ? [pair.a, pair.b] : [pair.b, pair.a];
    if (newer.index < evaluateFrom || !SAME_DEVICE_KINDS.includes(pair.kind) || inTier.has(pairKey(older.index, newer.index))) continue;
    const gap = newer.atMs - older.atMs;
    if (older.ip !== newer.ip || gap >= DAY_MS) continue;
    pairs++;
    expected += 1 - gap / DAY_MS;
  }
  return { pairs, expected };
}

function ipv6Line(
  population: Population,
  evaluateFrom: number,
  verdicts: readonly PairVerdict[],
  assumption: AccountAgeAssumption,
): string {
  const inTier = new Set(verdicts.filter((v) => v.confidence !== 'possible').map((v) => pairKey(v.a, v.b)));
  const reach = ipv6Reach(population, evaluateFrom, inTier);
  const total = verdictQuality(population, verdicts, evaluateFrom).sameDeviceRecall.pairs;
  const added = reach.expected * IPV6_SHARE[assumption];
  return `IPv6's own addresses (estimate): ${reach.pairs} same-device pairs below medium came from one place within a day; with ${pct(IPV6_SHARE[assumption], 0)} of visitors on IPv6 and daily rotation, about ${added.toFixed(0)} more (+${pct(added / total)} recall), no stranger`;
}

/** The badge tier's figures for a set of verdicts, with the bound on `signature`'s evidence at the same false links. */
function tierLine(population: Population, evaluateFrom: number, verdicts: readonly PairVerdict[], classes: EvidenceClasses): string {
  const q = verdictQuality(population, verdicts, evaluateFrom);
  const badge = badgeTier(q);
  const bound = recallCeiling(classes.classes, classes.sameDevicePairs, badge.falseLinks);
  const gap = bound - q.sameDeviceRecall.share;
  return `tier ${pct(badge.precision, 2)} (${badge.links - badge.falseLinks}/${badge.links}), ${badge.falsePer10k.toFixed(1)} false per 10k, recall ${pct(q.sameDeviceRecall.share)} (${q.sameDeviceRecall.found}/${q.sameDeviceRecall.pairs}), bound ${pct(bound)} (${(gap * 100).toFixed(1)} points above)`;
}

/** Who a rule's strangers are: one household, a person's alt, the same device model. */
function strangerKinds(population: Population, links: readonly { x: number; y: number }[]): string {
  const kinds = new Map<string, number>();
  for (const { x, y } of links) {
    const [a, b] = [population.accounts[x]!, population.accounts[y]!];
    const what = [
      a.householdId === b.householdId ? 'one household' : 'two households',
      a.kind !== 'first' || b.kind !== 'first' ? "one is another person's alt" : 'two first accounts',
      a.fingerprint.canvas.split('|').slice(0, 3).join() === b.fingerprint.canvas.split('|').slice(0, 3).join()
        ? 'same device model'
        : 'other models',
    ].join(', ');
    kinds.set(what, (kinds.get(what) ?? 0) + 1);
  }
  return [...kinds]
    .sort((p, q) => q[1] - p[1])
    .map(([k, n]) => `${n} ${k}`)
    .join('; ');
}

/** The product's rules as medium, one more at a time in the order of their own precision: the tier taking more false links. */
function frontier(population: Population, evaluateFrom: number, verdicts: readonly RuledVerdict[], classes: EvidenceClasses): string[] {
  const best = new Map<string, RuledVerdict>();
  const rank = { possible: 1, medium: 2, certain: 3 } as const;
  for (const v of verdicts) {
    const k = pairKey(v.a, v.b);
    const current = best.get(k);
    if (!current || rank[v.confidence] > rank[current.confidence]) best.set(k, v);
  }
  const precision = new Map<string, { right: number; all: number }>();
  for (const v of best.values()) {
    if (v.confidence !== 'possible') continue;
    const row = precision.get(v.rule) ?? { right: 0, all: 0 };
    row.all++;
    if (pairKind(population.accounts[v.a]!, population.accounts[v.b]!) !== null) row.right++;
    precision.set(v.rule, row);
  }
  const order = ALT_RULES.filter((r) => precision.has(r)).sort(
    (a, b) => precision.get(b)!.right / precision.get(b)!.all - precision.get(a)!.right / precision.get(a)!.all,
  );
  const lines: string[] = [];
  const promoted = new Set<AltRule | string>();
  for (const rule of order) {
    promoted.add(rule);
    const raised = [...best.values()].map((v) =>
      v.confidence === 'possible' && promoted.has(v.rule) ? { ...v, confidence: 'medium' as const } : v,
    );
    lines.push(`    + ${rule.padEnd(28)} ${tierLine(population, evaluateFrom, raised, classes)}`);
  }
  return lines;
}

function main() {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const people = arg('--people', 25_000);
  const scored = arg('--scored', 3_000);
  const seed = arg('--seed', 8);
  const out = (line: string) => process.stdout.write(`${line}\n`);

  // the bound on P8's own population (no timing assumption), at the tier's false links and beyond, and held out
  const p8 = generatePopulation({ people, seed });
  const p8From = Math.max(0, p8.accounts.length - scored);
  const p8Classes = evidenceClasses(p8, p8From, 'product');
  const held = generatePopulation({ people, seed: arg('--holdout-seed', 9) });
  const heldClasses = evidenceClasses(held, Math.max(0, held.accounts.length - scored), 'product');
  out(`P8's population (seed ${seed}): ${p8Classes.people} legitimate members, ${p8Classes.sameDevicePairs} same-device pairs`);
  for (const per10k of [0, 16.9, 50, 100, 200, 300]) {
    const bound = recallCeiling(p8Classes.classes, p8Classes.sameDevicePairs, (per10k * p8Classes.people) / 10_000);
    const there = heldOutChoice(p8Classes, heldClasses, per10k);
    const back = heldOutChoice(heldClasses, p8Classes, per10k);
    out(
      `  ≤ ${String(per10k).padStart(5)} false per 10k: bound ${pct(bound)}; the same choice of classes on seed ${held.seed}: ${pct(there.recall)} at ${there.falsePer10k.toFixed(0)} false per 10k; chosen on seed ${held.seed}, read here: ${pct(back.recall)} at ${back.falsePer10k.toFixed(0)}`,
    );
  }
  const p8Replay = replay(p8, p8From);
  out(`  the tier today: ${tierLine(p8, p8From, p8Replay.verdicts, p8Classes)}`);
  out("  the product's possible rules promoted to medium one at a time, most precise first (the tier taking more false links):");
  for (const line of frontier(p8, p8From, p8Replay.verdicts, p8Classes)) out(line);
  for (const assumption of ['base', 'pessimistic'] as const) out(`  ${ipv6Line(p8, p8From, p8Replay.verdicts, assumption)}`);

  for (const assumption of Object.keys(ACCOUNT_AGE_ASSUMPTIONS) as AccountAgeAssumption[]) {
    const population = generatePopulation({ people, seed, accountAge: assumption, timing: assumption });
    const evaluateFrom = Math.max(0, population.accounts.length - scored);
    out(
      `\nassumptions '${assumption}': account ages ${JSON.stringify(ACCOUNT_AGE_ASSUMPTIONS[assumption])}, timing ${JSON.stringify(TIMING_ASSUMPTIONS[assumption])}`,
    );
    const { verdicts, attempts } = replay(population, evaluateFrom);
    const signature: CeilingSignature = 'with-timing';
    const classes = evidenceClasses(population, evaluateFrom, signature);
    out(`  the product's rule: ${tierLine(population, evaluateFrom, verdicts, classes)} (bound reading the age and both times)`);
    const inTier = new Set(verdicts.filter((v) => v.confidence !== 'possible').map((v) => pairKey(v.a, v.b)));
    const pairs = addressPairs(population, attempts, evaluateFrom).filter((p) => !inTier.has(pairKey(p.x, p.y)));
    const union: { x: number; y: number }[] = [];
    for (const rule of EVIDENCE_RULES) {
      const links = pairs.filter((p) => rule.holds(p.facts));
      const truth = links.map((l) => pairKind(population.accounts[l.x]!, population.accounts[l.y]!));
      const sameDevice = truth.filter((k) => k !== null && SAME_DEVICE_KINDS.includes(k)).length;
      const otherAlts = truth.filter((k) => k !== null).length - sameDevice;
      const strangers = links.filter((_, i) => truth[i] === null);
      const added: PairVerdict[] = links.map((l) => ({ a: l.y, b: l.x, confidence: 'medium' }));
      out(
        `  + ${rule.name}: adds ${sameDevice} same-device / ${otherAlts} other alts / ${strangers.length} strangers (${pct((sameDevice + otherAlts) / Math.max(links.length, 1))})`,
      );
      if (strangers.length) out(`      strangers: ${strangerKinds(population, strangers)}`);
      out(`      ${tierLine(population, evaluateFrom, [...verdicts, ...added], classes)}`);
      union.push(...links);
    }
    const all = [...new Map(union.map((l) => [pairKey(l.x, l.y), l])).values()];
    const strangers = all.filter((l) => pairKind(population.accounts[l.x]!, population.accounts[l.y]!) === null);
    out(`  + all four: ${all.length - strangers.length} alts / ${strangers.length} strangers`);
    if (strangers.length) out(`      strangers: ${strangerKinds(population, strangers)}`);
    out(
      `      ${tierLine(
        population,
        evaluateFrom,
        [...verdicts, ...all.map((l): PairVerdict => ({ a: l.y, b: l.x, confidence: 'medium' }))],
        classes,
      )}`,
    );
    out(`  ${ipv6Line(population, evaluateFrom, verdicts, assumption)}`);
    if (process.argv.includes('--base-only')) break;
  }
}

if (require.main === module) main();
