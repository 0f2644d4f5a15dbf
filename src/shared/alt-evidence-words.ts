/**
 * How strong an alt link is and why, in a moderator's words: one phrase per link, read by
 * the member detail page and `/lookup` alike, built from the link's stored evidence (the
 * SharedCounts of src/modules/alts/alt-scoring.ts: how many members besides the two show
 * each shared value). Pure TypeScript: no DOM, no Node APIs, no imports.
 *
 * Only certain and medium links count as alts (badges, counts, filters, /lookup's alt
 * count, #logs lines, appeals); a possible link is evidence staff may read, never an
 * accusation, and its phrase says so: "(weak, not counted)".
 */

export type AltLinkStrength = 'certain' | 'medium' | 'possible';

/** The strength of a link in words, as the phrase ends. */
export const ALT_STRENGTH_WORDS: Record<AltLinkStrength, string> = {
  certain: 'certain',
  medium: 'medium',
  possible: 'weak, not counted',
};

/** The tiers that count as alts everywhere; 'possible' is evidence only. */
export const COUNTED_ALT_STRENGTHS: readonly AltLinkStrength[] = ['certain', 'medium'];

export function countsAsAlt(confidence: AltLinkStrength): boolean {
  return COUNTED_ALT_STRENGTHS.includes(confidence);
}

/** The heading possible links are listed under: shared evidence, worded as no accusation. */
export const WEAK_EVIDENCE_HEADING = 'Shares a device profile or network with';

/** What the phrase reads from a link's stored evidence (every field optional: links stored before a field was kept lack it). */
export interface AltEvidenceFacts {
  browserTokenMatch?: boolean;
  fingerprintMatch?: boolean;
  ipMatch?: boolean;
  networkMatch?: boolean;
  /** the network is marked shared: address and network matches were not counted */
  sharedNetwork?: boolean;
  components?: Partial<Record<'canvas' | 'webgl' | 'audio' | 'fonts' | 'screen' | 'timezone' | 'language' | 'platform', boolean>>;
  fingerprintShared?: number | null;
  fingerprintNetworks?: number | null;
  addressShared?: number | null;
  canvasShared?: number | null;
  webglShared?: number | null;
  audioShared?: number | null;
  fontsShared?: number | null;
  /** a count at or above this is a lower bound */
  sharedCountsCappedAt?: number;
}

const BOOLEAN_FACTS = ['browserTokenMatch', 'fingerprintMatch', 'ipMatch', 'networkMatch', 'sharedNetwork'] as const;
const COUNT_FACTS = [
  'fingerprintShared',
  'fingerprintNetworks',
  'addressShared',
  'canvasShared',
  'webglShared',
  'audioShared',
  'fontsShared',
  'sharedCountsCappedAt',
] as const;
const COMPONENT_KEYS = ['canvas', 'webgl', 'audio', 'fonts', 'screen', 'timezone', 'language', 'platform'] as const;

/** Keeps only the facts of a stored evidence value that have the expected type (stored JSON is read as unknown). */
export function altEvidenceFacts(evidence: unknown): AltEvidenceFacts {
  if (!evidence || typeof evidence !== 'object') return {};
  const source = evidence as Record<string, unknown>;
  const facts: Record<string, unknown> = {};
  for (const key of BOOLEAN_FACTS) if (typeof source[key] === 'boolean') facts[key] = source[key];
  for (const key of COUNT_FACTS) if (typeof source[key] === 'number' && Number.isFinite(source[key])) facts[key] = source[key];
  const components = source.components;
  if (components && typeof components === 'object') {
    const kept: Record<string, boolean> = {};
    for (const key of COMPONENT_KEYS) {
      const value = (components as Record<string, unknown>)[key];
      if (typeof value === 'boolean') kept[key] = value;
    }
    facts.components = kept;
  }
  return facts as AltEvidenceFacts;
}

/** The device components in words, for a component match without the whole device profile. */
const COMPONENT_WORDS = { canvas: 'graphics drawing', webgl: 'graphics card', audio: 'audio stack', fonts: 'font list' } as const;
type DeviceComponent = keyof typeof COMPONENT_WORDS;
const DEVICE_COMPONENTS = Object.keys(COMPONENT_WORDS) as DeviceComponent[];

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "as 214 other members on 180 networks", "shown by no other member"; '' when the count was not kept. */
function howCommon(others: number | null | undefined, facts: AltEvidenceFacts, networks?: number | null): string {
  if (typeof others !== 'number') return '';
  if (others <= 0) return ', shown by no other member';
  const atLeast = facts.sharedCountsCappedAt !== undefined && others >= facts.sharedCountsCappedAt ? 'at least ' : '';
  // the networks are counted over the members besides the attempt's own, the other member of the
  // pair included: named only when they cannot read as more places than the members counted
  const where = typeof networks === 'number' && networks > 1 && networks <= others ? ` on ${networks} networks` : '';
  return ` as ${atLeast}${plural(others, 'other member', 'other members')}${where}`;
}

/**
 * A device component at most this many members besides the two show is the device's own (as
 * RARITY.rareComponentOthers in src/modules/alts/alt-scoring.ts, which a test holds equal): a
 * same fingerprint with one is one device, not one model.
 */
export const RARE_COMPONENT_OTHERS = 1;

/** ", with a font list no other member shows": the rarest device component of an equal fingerprint, when it is rare; '' otherwise. */
function ownComponent(facts: AltEvidenceFacts): string {
  // a fingerprint no other member shows is the device's own already
  if (typeof facts.fingerprintShared !== 'number' || facts.fingerprintShared <= 0) return '';
  const rare = DEVICE_COMPONENTS.map((c) => ({ c, others: facts[`${c}Shared`] }))
    .filter((r): r is { c: DeviceComponent; others: number } => typeof r.others === 'number' && r.others <= RARE_COMPONENT_OTHERS)
    .sort((a, b) => a.others - b.others)[0];
  if (!rare) return '';
  return `, with a ${COMPONENT_WORDS[rare.c]} ${rare.others <= 0 ? 'no other member shows' : `only ${plural(rare.others, 'other member shows', 'other members show')}`}`;
}

/**
 * Why two members are linked, strongest reason first: "same browser", "same device model as
 * 214 other members on 180 networks", "same internet address", … Empty for a link staff made
 * without detection evidence.
 */
export function altEvidenceReasons(facts: AltEvidenceFacts): string[] {
  const reasons: string[] = [];
  const notCounted = facts.sharedNetwork ? ', marked shared by staff' : '';
  if (facts.browserTokenMatch) reasons.push('same browser');
  if (facts.fingerprintMatch)
    reasons.push(`same device model${howCommon(facts.fingerprintShared, facts, facts.fingerprintNetworks)}${ownComponent(facts)}`);
  if (facts.ipMatch) reasons.push(`same internet address${howCommon(facts.addressShared, facts)}${notCounted}`);
  else if (facts.networkMatch) reasons.push(`same network${notCounted}`);
  const components = facts.components ?? {};
  if (!facts.fingerprintMatch) {
    for (const component of DEVICE_COMPONENTS) {
      if (components[component] === true)
        reasons.push(`same ${COMPONENT_WORDS[component]}${howCommon(facts[`${component}Shared`], facts)}`);
    }
    if (components.screen === true && components.timezone === true && components.language === true && components.platform === true) {
      reasons.push('same screen, time zone, language and platform');
    }
  }
  return reasons;
}

/**
 * The one phrase for a link: its reasons, then its strength, e.g. "same browser (certain)",
 * "same device model as 214 other members on 180 networks (weak, not counted)". With
 * `maxReasons` (a short reply), the strongest reasons are named and the rest counted.
 */
export function describeAltEvidence(
  link: { confidence: AltLinkStrength; detectionMethod: string; evidence: unknown },
  options: { maxReasons?: number } = {},
): string {
  const reasons = altEvidenceReasons(altEvidenceFacts(link.evidence));
  const max = Math.max(1, options.maxReasons ?? reasons.length);
  const named =
    reasons.length > max ? [...reasons.slice(0, max), `${plural(reasons.length - max, 'more shared sign', 'more shared signs')}`] : reasons;
  const why = named.length > 0 ? named.join('; ') : link.detectionMethod === 'manual' ? 'linked by staff' : 'no shared evidence recorded';
  return `${why} (${ALT_STRENGTH_WORDS[link.confidence]})`;
}
