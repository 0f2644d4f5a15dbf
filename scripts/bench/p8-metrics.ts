import { SAME_DEVICE_KINDS, truePairs, type AltKind, type Population } from './p8-population';

export const TIERS = ['certain', 'medium', 'possible'] as const;
export type Tier = (typeof TIERS)[number];

/** One verdict about a pair of accounts, by their positions in the population (order does not matter). */
export interface PairVerdict {
  a: number;
  b: number;
  confidence: Tier;
}

export interface TierQuality {
  tier: Tier;
  links: number;
  truePositives: number;
  /** of the links at exactly this tier, the share between accounts of one person */
  precision: number;
  /** of all true pairs the product could see, the share linked at this tier or above */
  recallAtOrAbove: number;
  /** links at this tier between accounts of different people, per 10,000 people (legitimate first accounts) */
  falsePer10k: number;
}

export interface VerdictQuality {
  tiers: TierQuality[];
  /** true pairs per kind, and how many were linked at certain or medium */
  byKind: Record<AltKind, { pairs: number; certainOrMedium: number; certain: number }>;
  sameDeviceRecall: { found: number; pairs: number; share: number };
  /** the same, for the pairs whose two visits came from one address */
  sameDeviceSameAddressRecall: { found: number; pairs: number; share: number };
  /** legitimate members in the evaluated window: first accounts verified from `evaluatedFrom` on */
  people: number;
}

/** One key per unordered pair of account positions. */
export const pairKey = (a: number, b: number) => (a < b ? `${a}:${b}` : `${b}:${a}`);
const RANK: Record<Tier, number> = { possible: 1, medium: 2, certain: 3 };

/**
 * Precision and recall of a set of verdicts against the population's truth. Only the
 * verifications from position `evaluatedFrom` on were scored (the accounts before them are
 * the stored history they are compared with): a pair counts when its newer account is one
 * of them, which is when detection judges it. Recall counts pairs the product could see at
 * all (a VPN-flagged visit keeps no evidence: its pairs are reported per kind but left out
 * of the recall denominators). False links are counted per 10,000 legitimate members: the
 * people whose first account is in the evaluated window.
 */
export function verdictQuality(population: Population, verdicts: readonly PairVerdict[], evaluatedFrom = 0): VerdictQuality {
  const truth = new Map<string, AltKind>();
  const sameAddress = new Set<string>();
  for (const pair of truePairs(population)) {
    if (Math.max(pair.a.index, pair.b.index) < evaluatedFrom) continue;
    truth.set(pairKey(pair.a.index, pair.b.index), pair.kind);
    if (pair.a.ip === pair.b.ip) sameAddress.add(pairKey(pair.a.index, pair.b.index));
  }
  const people = population.accounts.filter((a) => a.kind === 'first' && a.index >= evaluatedFrom).length;
  const best = new Map<string, Tier>();
  for (const v of verdicts) {
    const k = pairKey(v.a, v.b);
    const current = best.get(k);
    if (!current || RANK[v.confidence] > RANK[current]) best.set(k, v.confidence);
  }
  const visible = [...truth].filter(([, kind]) => kind !== 'vpn');
  const tiers = TIERS.map((tier): TierQuality => {
    const links = [...best].filter(([, t]) => t === tier);
    const truePositives = links.filter(([k]) => truth.has(k)).length;
    const found = visible.filter(([k]) => {
      const linked = best.get(k);
      return linked !== undefined && RANK[linked] >= RANK[tier];
    }).length;
    return {
      tier,
      links: links.length,
      truePositives,
      precision: links.length ? truePositives / links.length : Number.NaN,
      recallAtOrAbove: visible.length ? found / visible.length : Number.NaN,
      falsePer10k: people ? ((links.length - truePositives) / people) * 10_000 : Number.NaN,
    };
  });
  const byKind = {} as VerdictQuality['byKind'];
  for (const [k, kind] of truth) {
    const entry = (byKind[kind] ??= { pairs: 0, certainOrMedium: 0, certain: 0 });
    entry.pairs++;
    const tier = best.get(k);
    if (tier === 'certain' || tier === 'medium') entry.certainOrMedium++;
    if (tier === 'certain') entry.certain++;
  }
  const recallOf = (pairs: [string, AltKind][]) => {
    const found = pairs.filter(([k]) => best.get(k) === 'certain' || best.get(k) === 'medium').length;
    return { found, pairs: pairs.length, share: pairs.length ? found / pairs.length : Number.NaN };
  };
  const sameDevice = [...truth].filter(([, kind]) => SAME_DEVICE_KINDS.includes(kind));
  return {
    tiers,
    byKind,
    sameDeviceRecall: recallOf(sameDevice),
    sameDeviceSameAddressRecall: recallOf(sameDevice.filter(([k]) => sameAddress.has(k))),
    people,
  };
}

/** The alt badge's tier, certain and medium together: its links, false links, precision and false links per 10k legitimate members. */
export function badgeTier(q: VerdictQuality): { links: number; falseLinks: number; precision: number; falsePer10k: number } {
  const tiers = q.tiers.filter((t) => t.tier !== 'possible');
  const links = tiers.reduce((sum, t) => sum + t.links, 0);
  const falseLinks = tiers.reduce((sum, t) => sum + t.links - t.truePositives, 0);
  return {
    links,
    falseLinks,
    precision: links ? (links - falseLinks) / links : Number.NaN,
    falsePer10k: q.people ? (falseLinks / q.people) * 10_000 : Number.NaN,
  };
}

const pct = (x: number, digits = 1) => (Number.isNaN(x) ? 'n/a' : `${(x * 100).toFixed(digits)}%`);

/** A plain-text table of a quality, for the bench notes and the proposal's output. */
export function formatQuality(label: string, q: VerdictQuality): string {
  const lines = [`${label}`, '  tier      links   precision  recall(≥tier)  false per 10k legitimate members'];
  for (const t of q.tiers)
    lines.push(
      `  ${t.tier.padEnd(9)} ${String(t.links).padStart(6)}   ${pct(t.precision, 2).padStart(8)}   ${pct(t.recallAtOrAbove).padStart(10)}     ${t.falsePer10k.toFixed(1).padStart(8)}`,
    );
  lines.push(
    `  same-device recall at certain+medium: ${pct(q.sameDeviceRecall.share)} (${q.sameDeviceRecall.found}/${q.sameDeviceRecall.pairs}); same device and same address: ${pct(q.sameDeviceSameAddressRecall.share)} (${q.sameDeviceSameAddressRecall.found}/${q.sameDeviceSameAddressRecall.pairs})`,
  );
  lines.push(
    `  by kind (certain / certain+medium of pairs): ${Object.entries(q.byKind)
      .map(([kind, e]) => `${kind} ${e.certain}/${e.certainOrMedium}/${e.pairs}`)
      .join(', ')}`,
  );
  return lines.join('\n');
}

export { pct };
