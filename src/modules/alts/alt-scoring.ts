import type { ALT_CONFIDENCES } from '../../db/schema';
import { COMPARED_FINGERPRINT_COMPONENTS } from '../../shared/fingerprint';
import type { FingerprintComponentHashes } from '../fingerprint';
import { DAY_MS } from '../../shared/durations';

/**
 * Alt-account scoring, pure: the one place that decides how sure we are that two
 * verification attempts came from one person. The rules in words, why each tier is what it
 * is and what the bench measured are written once, in docs/behaviour.md ("Alt detection");
 * src/behaviour-thresholds.test.ts checks every figure stated there against the constants here.
 * Here: `scoreCandidate` tries the rules (`ALT_RULES`) in order and the first that holds
 * decides; RARITY holds their thresholds; "others" in a count are members besides the two
 * compared (AnonymityCounts, read by the candidate lookup, count members besides the attempt's own).
 */

export const COMPARED_COMPONENTS = COMPARED_FINGERPRINT_COMPONENTS;
export type ComparedComponent = (typeof COMPARED_COMPONENTS)[number];
export const HIGH_ENTROPY_COMPONENTS = ['canvas', 'webgl', 'audio', 'fonts'] as const satisfies readonly ComparedComponent[];

/** Per component: true (equal), false (different), undefined (absent on either side). */
export type ComponentComparison = { [K in ComparedComponent]: boolean | undefined };

export type AltConfidence = (typeof ALT_CONFIDENCES)[number];
/** How a detected link was found ('manual' links are made by staff, never by scoring). */
export type DetectedAltMethod = 'ip' | 'fingerprint' | 'both' | 'network' | 'browser';

type ComparedHashKey = `${ComparedComponent}Hash`;

/** What scoring reads from a verification attempt (null = not recorded, e.g. Limited Access). */
export type AttemptSignals = {
  ipHash: string | null;
  networkHash: string | null;
  fingerprintHash: string | null;
  /** keyed hash of the browser profile's token (src/modules/browser-token); absent or null when none was kept */
  browserTokenHash?: string | null;
  /** when the attempt's Discord account was created (its snowflake's time, epoch ms); absent or null when unknown */
  accountCreatedMs?: number | null;
  /**
   * the new attempt only: its profile looks like a stock phone (`looksStock`, judged from the
   * collected values at consent, which are never stored; the attempt keeps this verdict, for
   * re-scoring); absent or null when unknown, which the new-server prior treats as stock
   */
  stockProfile?: boolean | null;
} & Pick<FingerprintComponentHashes, ComparedHashKey>;

/**
 * The anonymity sets of the new attempt's values: how many members other than the
 * attempt's own show each of them, counted by find_alt_candidates among the newest
 * ANONYMITY_COUNT_CAP stored attempts carrying the value (an index range, never a scan),
 * so a count reaches at most the cap. 0 when the attempt lacks the value.
 */
export interface AnonymityCounts {
  fingerprint: number;
  /** distinct networks (/24 IPv4, /64 IPv6) the other members showing the fingerprint were on */
  fingerprintNetworks: number;
  address: number;
  /** members on this address with this fingerprint (counted among the candidates, which put them first) */
  addressFingerprint: number;
  canvas: number;
  webgl: number;
  audio: number;
  fonts: number;
  /** distinct networks other members' attempts carrying the attempt's browser token were on */
  browserTokenNetworks: number;
  /** members the server holds, counted up to RARITY.membersToJudgeRarity (a bounded read, never a count of the whole table) */
  members: number;
}

export const ANONYMITY_COUNT_CAP = 64;

/** What scoring knows about the attempt beyond the pair: its network's shared marking and its anonymity sets. */
export interface ScoringContext {
  sharedNetwork: boolean;
  counts: AnonymityCounts;
  /** when the attempt was made (epoch ms): the account's age is taken at this time; without it the age is no evidence */
  attemptAtMs?: number;
}

/** The thresholds of the rule; why each is what it is stands beside it (docs/behaviour.md gives the rules in words). */
export const RARITY = {
  /** same address + same fingerprint is certain when at most this many other members show the fingerprint */
  certainFingerprintOthers: 0,
  /** same address + canvas, WebGL and audio all equal is certain when at most this many other members show each of them */
  uniqueDeviceOthers: 0,
  /**
   * same fingerprint elsewhere (with a rare component) is medium up to this many other
   * members: the device moved (see the rule 'rare-fingerprint-elsewhere')
   */
  fingerprintElsewhereOthers: 2,
  /**
   * same address + same fingerprint is possible up to this many other members showing both
   * (one device, or a household's same-model phones: in P8 more strangers than alts, the
   * siblings with the same phone; a young account does not change that enough, see docs/behaviour.md)
   */
  sameAddressFingerprintOthers: 2,
  /** an address with more other members than this is crowded: the address alone proves nothing */
  crowdedAddress: 10,
  /** a high-entropy component is rare when at most this many other members show it */
  rareComponentOthers: 1,
  /**
   * a rare component seen from another place counts only when another of the attempt's
   * high-entropy components is shown by at least this many other members: devices of its
   * kind are common here, so the rare one is this device's own (on a new or small server
   * every value is rare, a stock font list included, and proves nothing)
   */
  commonComponentOthers: 10,
  /** the browser token stops counting when other members carried it on more networks than this (a copied cookie) */
  browserTokenNetworks: 3,
  /** with the token, this many equal high-entropy components (of canvas, WebGL, audio, fonts) are the same device */
  browserSameDeviceComponents: 3,
  /**
   * an account created at most this many days before it verifies is young: an account made
   * to be an alt is made when it is needed, usually the same day or the day before; a week
   * leaves room for one made days ahead. Not fitted to P8: there the made-for-it alts are at
   * most two days old and the new Discord users spread over their first month, so any value
   * from 2 to 30 days separates them alike. Recorded as evidence; no tier uses it (P8
   * measured no rule with it right nine times in ten: docs/behaviour.md)
   */
  youngAccountDays: 7,
  /**
   * below this many members rarity is not judged for a profile that looks stock. In P8's
   * population (its device catalogue calibrated to adF's shares of shared fingerprints) the
   * most common configuration is shown by 1 member in 26, the tenth by 1 in 192, the
   * fiftieth by 1 in 621: on a server of 100 even the tenth is seen about once, which is what
   * a device's own value looks like; with 1,000 members the ten most common are each seen
   * five times or more, beyond the "at most one other" of a rare value
   */
  membersToJudgeRarity: 1000,
} as const;

/** The rules of `scoreCandidate`, in the order they are tried; the first that holds decides. */
export const ALT_RULES = [
  'same-browser-profile',
  'address-rare-fingerprint',
  'address-unique-device',
  'address-rare-component',
  'rare-fingerprint-elsewhere',
  'rare-component-elsewhere',
  'address-fingerprint',
  'home-partial',
  'home-same-machine',
  'home-address',
  'address-rare-component-only',
  'network-rare-component',
] as const;
export type AltRule = (typeof ALT_RULES)[number];

/**
 * How many members besides the two compared show a value (null when the two do not share
 * it). Counts of the cap or more are "at least" figures: the evidence keeps them as counted.
 */
export interface SharedCounts {
  fingerprintShared: number | null;
  fingerprintNetworks: number | null;
  addressShared: number | null;
  canvasShared: number | null;
  webglShared: number | null;
  audioShared: number | null;
  fontsShared: number | null;
  /** a count at or above this is a lower bound (the newest attempts carrying the value were read, not all) */
  sharedCountsCappedAt: number;
}

export interface AltEvidence extends SharedCounts {
  components: ComponentComparison;
  /** both attempts carried the same browser token (one browser profile) */
  browserTokenMatch: boolean;
  /** networks other members carried the token on (null when the tokens differ); above RARITY.browserTokenNetworks it did not count */
  browserTokenNetworks: number | null;
  ipMatch: boolean;
  networkMatch: boolean;
  fingerprintMatch: boolean;
  /** the network is marked shared, so ipMatch / networkMatch were not counted */
  sharedNetwork: boolean;
  /** how many high-entropy components (canvas, webgl, audio, fonts) are equal */
  strongComponentMatches: number;
  /** how many compared components are equal */
  componentMatches: number;
  /** the attempt's Discord account is young (RARITY.youngAccountDays) and newer than the candidate's */
  youngAccount: boolean;
  /** rarity was judged: the server holds RARITY.membersToJudgeRarity members, or the profile does not look stock */
  rarityJudged: boolean;
  /** orders candidates of equal confidence; not a probability */
  score: number;
}

export interface AltScore {
  confidence: AltConfidence | null;
  /** null exactly when confidence is null */
  detectionMethod: DetectedAltMethod | null;
  evidence: AltEvidence;
  /** the rule that decided (null exactly when confidence is null); not stored, for measuring each rule */
  rule: AltRule | null;
}

export const CONFIDENCE_RANK: Record<AltConfidence, number> = { possible: 1, medium: 2, certain: 3 };

export function confidenceRank(confidence: AltConfidence | null): number {
  return confidence ? CONFIDENCE_RANK[confidence] : 0;
}

function sameValue(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a === b;
}

/**
 * True when the attempt carries at least one high-entropy component. A fingerprint
 * without any (every probe failed: 'canvas-unavailable', …, or all 'error') hashes the
 * same for every such browser, so its equality says nothing about the device.
 */
export function hasDeviceIdentity(signals: AttemptSignals): boolean {
  return HIGH_ENTROPY_COMPONENTS.some((c) => signals[`${c}Hash`] !== null);
}

export function compareComponents(a: AttemptSignals, b: AttemptSignals): ComponentComparison {
  const result = {} as ComponentComparison;
  for (const component of COMPARED_COMPONENTS) {
    const key: ComparedHashKey = `${component}Hash`;
    const left = a[key];
    const right = b[key];
    result[component] = left === null || right === null ? undefined : left === right;
  }
  return result;
}

const WEIGHTS = { browser: 60, ip: 40, network: 10, fingerprint: 50, highComponent: 8, lowComponent: 2 } as const;

/** The address, network and fingerprint matches, and which of them count on this network. */
interface SignalMatches {
  ipMatch: boolean;
  networkMatch: boolean;
  fingerprintMatch: boolean;
  /** the same browser token on both attempts */
  browserMatch: boolean;
  ipCounts: boolean;
  networkCounts: boolean;
}

function matchSignals(attempt: AttemptSignals, candidate: AttemptSignals, context: { sharedNetwork: boolean }): SignalMatches {
  const ipMatch = sameValue(attempt.ipHash, candidate.ipHash);
  const networkMatch = sameValue(attempt.networkHash, candidate.networkHash);
  const fingerprintMatch =
    sameValue(attempt.fingerprintHash, candidate.fingerprintHash) && hasDeviceIdentity(attempt) && hasDeviceIdentity(candidate);
  const browserMatch = sameValue(attempt.browserTokenHash ?? null, candidate.browserTokenHash ?? null);
  return {
    ipMatch,
    networkMatch,
    fingerprintMatch,
    browserMatch,
    ipCounts: ipMatch && !context.sharedNetwork,
    networkCounts: networkMatch && !context.sharedNetwork,
  };
}

function countHighEntropyMatches(components: ComponentComparison): number {
  return HIGH_ENTROPY_COMPONENTS.filter((c) => components[c] === true).length;
}

/** Members besides the candidate in a set the candidate belongs to (the attempt's own member is never counted). */
function othersBesides(count: number): number {
  return Math.max(count - 1, 0);
}

/** A high-entropy component both attempts show that at most RARITY.rareComponentOthers members besides the candidate show. */
function sharesRareComponent(components: ComponentComparison, counts: AnonymityCounts): boolean {
  return HIGH_ENTROPY_COMPONENTS.some((c) => components[c] === true && othersBesides(counts[c]) <= RARITY.rareComponentOthers);
}

/**
 * True when the candidate is worth reading for these anonymity counts: it must share the
 * browser token (on any network), the fingerprint, or the address (on a network not marked
 * shared), or the network (not marked shared) together with at least one high-entropy
 * component, or, on any network, a rare high-entropy component (at most
 * RARITY.rareComponentOthers members besides the candidate show it). A popular device
 * component alone never flags. The candidate lookup (src/db/functions/find_alt_candidates.sql,
 * called with candidateProbe) reads exactly these candidates, each branch through its own
 * index; beyond the rare component, how rare the shared values are decides the confidence
 * afterwards, not which candidates are read.
 */
export function canBeFlagged(
  attempt: AttemptSignals,
  candidate: AttemptSignals,
  context: { sharedNetwork: boolean; counts: AnonymityCounts },
): boolean {
  const { ipCounts, networkCounts, fingerprintMatch, browserMatch } = matchSignals(attempt, candidate, context);
  const components = compareComponents(attempt, candidate);
  return (
    browserMatch ||
    fingerprintMatch ||
    ipCounts ||
    (networkCounts && countHighEntropyMatches(components) >= 1) ||
    sharesRareComponent(components, context.counts)
  );
}

function sharedCounts(components: ComponentComparison, matches: SignalMatches, counts: AnonymityCounts): SharedCounts {
  const shared = (equal: boolean | undefined, count: number) => (equal === true ? othersBesides(count) : null);
  return {
    fingerprintShared: shared(matches.fingerprintMatch, counts.fingerprint),
    fingerprintNetworks: matches.fingerprintMatch ? counts.fingerprintNetworks : null,
    addressShared: shared(matches.ipMatch, counts.address),
    canvasShared: shared(components.canvas, counts.canvas),
    webglShared: shared(components.webgl, counts.webgl),
    audioShared: shared(components.audio, counts.audio),
    fontsShared: shared(components.fonts, counts.fonts),
    sharedCountsCappedAt: ANONYMITY_COUNT_CAP - 1,
  };
}

/**
 * True when the attempt's Discord account was created at most RARITY.youngAccountDays before
 * the attempt and after the candidate's account (the alt is the newer account). Unknown
 * creation times or attempt time: false.
 */
export function isYoungAccount(attempt: AttemptSignals, candidate: AttemptSignals, attemptAtMs: number | undefined): boolean {
  const created = attempt.accountCreatedMs ?? null;
  const other = candidate.accountCreatedMs ?? null;
  if (created === null || other === null || attemptAtMs === undefined) return false;
  return attemptAtMs - created <= RARITY.youngAccountDays * DAY_MS && created > other;
}

/**
 * The new-server prior: rarity is judged once the server holds RARITY.membersToJudgeRarity
 * members; before that only for a profile that does not look stock (an unknown one counts as stock).
 */
export function isRarityJudged(attempt: AttemptSignals, counts: AnonymityCounts): boolean {
  return counts.members >= RARITY.membersToJudgeRarity || attempt.stockProfile === false;
}

export function scoreCandidate(attempt: AttemptSignals, candidate: AttemptSignals, context: ScoringContext): AltScore {
  const components = compareComponents(attempt, candidate);
  const matches = matchSignals(attempt, candidate, context);
  const { ipMatch, networkMatch, fingerprintMatch, browserMatch, ipCounts, networkCounts } = matches;
  const shared = sharedCounts(components, matches, context.counts);

  const strongComponentMatches = countHighEntropyMatches(components);
  const componentMatches = COMPARED_COMPONENTS.filter((c) => components[c] === true).length;
  const partialMatch = strongComponentMatches >= 1 && componentMatches >= 2;
  const rarityJudged = isRarityJudged(attempt, context.counts);
  // the server holds enough members for a whole fingerprint's rarity to mean something, whatever the profile looks like
  const populationJudged = context.counts.members >= RARITY.membersToJudgeRarity;
  // on a server too small to judge rarity, a stock profile's values are never rare
  const componentOthers = (c: (typeof HIGH_ENTROPY_COMPONENTS)[number]) => (rarityJudged ? (shared[`${c}Shared`] ?? Infinity) : Infinity);
  const rareComponent = HIGH_ENTROPY_COMPONENTS.some((c) => componentOthers(c) <= RARITY.rareComponentOthers);
  const fingerprintOthers = rarityJudged ? (shared.fingerprintShared ?? Infinity) : Infinity;
  const crowdedAddress = ipCounts && othersBesides(context.counts.address) > RARITY.crowdedAddress;
  // a second browser on the same machine; only when both read some device component (the
  // settings of browsers whose every device probe failed say nothing about the machine)
  const bothReadDevice = HIGH_ENTROPY_COMPONENTS.some((c) => components[c] !== undefined);
  const sameMachineSettings =
    bothReadDevice &&
    components.screen === true &&
    components.timezone === true &&
    components.language === true &&
    components.platform === true;
  // the attempt shows a component many members show: its kind of device is common on this server
  const commonKind = HIGH_ENTROPY_COMPONENTS.some((c) => context.counts[c] >= RARITY.commonComponentOthers);
  const youngAccount = isYoungAccount(attempt, candidate, context.attemptAtMs);
  // one device on this address: at most RARITY.sameAddressFingerprintOthers other members show the fingerprint here
  const addressDevice =
    ipCounts && fingerprintMatch && othersBesides(context.counts.addressFingerprint) <= RARITY.sameAddressFingerprintOthers;

  let confidence: AltConfidence | null = null;
  let detectionMethod: DetectedAltMethod | null = null;
  let rule: AltRule | null = null;
  const found = (c: AltConfidence, m: DetectedAltMethod, r: AltRule) => {
    confidence = c;
    detectionMethod = m;
    rule = r;
  };
  // one browser profile: the token, on the same device (a token on another device is a copied
  // cookie, no evidence by itself; default fonts and a common screen are no device either)
  const browserCounts = browserMatch && context.counts.browserTokenNetworks <= RARITY.browserTokenNetworks;
  const sameDevice = fingerprintMatch || strongComponentMatches >= RARITY.browserSameDeviceComponents;
  if (browserCounts && sameDevice) found('certain', 'browser', 'same-browser-profile');
  else if (ipCounts && fingerprintMatch && fingerprintOthers <= RARITY.certainFingerprintOthers && rareComponent)
    found('certain', 'both', 'address-rare-fingerprint');
  else if (ipCounts && (['canvas', 'webgl', 'audio'] as const).every((c) => componentOthers(c) <= RARITY.uniqueDeviceOthers))
    found('certain', 'both', 'address-unique-device');
  else if (ipCounts && rareComponent && componentMatches >= 2) found('medium', 'both', 'address-rare-component');
  // One device that moved: a phone seen at home and then on cellular or a café's Wi-Fi, a
  // laptop taken to campus. The whole fingerprint is equal, it shows a component at most one
  // other member shows (a device's own rendering: installed fonts, a customised canvas, a rare
  // model in a rare locale), and at most two other members show the fingerprint: no popular
  // configuration matches this way. The legitimate case: two people with one rare stock
  // model and the same locale on different networks (in P8, 3 of its 27 links, each between
  // two households; 88.9%). On one address the rules above have decided already, so this
  // rule links pairs on different networks: siblings on one household network with the same
  // phone model, the false case the tiers exist to avoid, show a popular fingerprint there,
  // which stays possible ('address-fingerprint'). The rule rests on the whole fingerprint being
  // rare among the server's members, so it waits until the server holds enough members to say
  // so: on a new server three strangers with one desktop browser build on three networks would
  // all "share a rare fingerprint". Until then the match is evidence staff see (possible).
  else if (fingerprintMatch && fingerprintOthers <= RARITY.fingerprintElsewhereOthers && rareComponent)
    found(populationJudged ? 'medium' : 'possible', 'fingerprint', 'rare-fingerprint-elsewhere');
  else if (rareComponent && commonKind && sameMachineSettings) found('possible', 'fingerprint', 'rare-component-elsewhere');
  else if (addressDevice) found('possible', 'both', 'address-fingerprint');
  else if (ipCounts && !crowdedAddress && partialMatch) found('possible', 'both', 'home-partial');
  else if (ipCounts && !crowdedAddress && sameMachineSettings) found('possible', 'both', 'home-same-machine');
  else if (ipCounts && !crowdedAddress) found('possible', 'ip', 'home-address');
  else if (ipCounts && rareComponent) found('possible', 'ip', 'address-rare-component-only');
  else if (networkCounts && rareComponent) found('possible', 'network', 'network-rare-component');

  // orders candidates of equal confidence: rarer shared evidence first
  const rarityBonus = (others: number | null) => (others === null ? 0 : Math.max(0, 10 - Math.min(others, 10)));
  const highEqual = strongComponentMatches;
  const lowEqual = componentMatches - strongComponentMatches;
  const score =
    (browserCounts ? WEIGHTS.browser : 0) +
    (ipCounts ? WEIGHTS.ip : 0) +
    (networkCounts && !ipCounts ? WEIGHTS.network : 0) +
    (fingerprintMatch ? WEIGHTS.fingerprint : 0) +
    highEqual * WEIGHTS.highComponent +
    lowEqual * WEIGHTS.lowComponent +
    rarityBonus(shared.fingerprintShared) +
    HIGH_ENTROPY_COMPONENTS.reduce((sum, c) => sum + rarityBonus(shared[`${c}Shared`]), 0);

  return {
    confidence,
    detectionMethod,
    evidence: {
      components,
      browserTokenMatch: browserMatch,
      browserTokenNetworks: browserMatch ? context.counts.browserTokenNetworks : null,
      ipMatch,
      networkMatch,
      fingerprintMatch,
      sharedNetwork: context.sharedNetwork,
      strongComponentMatches,
      componentMatches,
      youngAccount,
      rarityJudged,
      score,
      ...shared,
    },
    rule,
  };
}

/** True when `a` is a stronger finding than `b` (confidence first, then score). */
export function isStrongerScore(a: AltScore, b: AltScore | undefined): boolean {
  if (!b) return true;
  const byRank = confidenceRank(a.confidence) - confidenceRank(b.confidence);
  return byRank !== 0 ? byRank > 0 : a.evidence.score > b.evidence.score;
}
