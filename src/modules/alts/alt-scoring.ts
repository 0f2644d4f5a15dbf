import type { ALT_CONFIDENCES } from '../../db/schema';
import { COMPARED_FINGERPRINT_COMPONENTS } from '../../shared/fingerprint';
import type { FingerprintComponentHashes } from '../fingerprint/fingerprint-components';

/**
 * Alt-account scoring, pure: the one place that decides how sure we are that two
 * verification attempts came from one person. Evidence is weighted by its rarity: a
 * fingerprint or component that many other members show (a popular phone model, a stock
 * laptop) proves little, a crowded address (carrier NAT, campus, café) proves nothing by
 * itself, and a rare fingerprint on the same address is strong. The counts come with the
 * candidates (AnonymityCounts: how many OTHER members show the new attempt's fingerprint,
 * address and each high-entropy component; "others" below excludes the two accounts
 * compared).
 *
 *  - certain:  the same browser token (one browser profile: a first-party random value the
 *              consent page keeps, stored as a keyed hash) on the same device (the same
 *              fingerprint, or three of the four high-entropy components equal, which a
 *              browser update leaves), whatever the address or the device's popularity,
 *              as long as other members carried the token on at most
 *              RARITY.browserTokenNetworks networks (a token copied around stops counting,
 *              and a token on a different device is never evidence by itself); or
 *              same address, the same fingerprint that no other member shows, and a
 *              high-entropy component at most one other member shows (the fingerprint hash
 *              includes time zone and language, so a popular phone in a rare locale has a
 *              rare hash while each of its device components is common); or same address
 *              with canvas, WebGL and audio all equal and shown by no other member
 *  - medium:   same address and same fingerprint with at most two other members showing
 *              that fingerprint on this address (one device, or a household's same-model
 *              phones, which is as far as the address lets us tell them apart); the same
 *              fingerprint elsewhere when at most two others show it and a component is rare
 *              (a device that moved); same address, a rare component and one more equal
 *              component (a private window noises canvas and audio but keeps its fonts); on
 *              an uncrowded address (a home) a partial component match, or screen, time
 *              zone, language and platform all equal (a second browser on the same machine);
 *              on any address, shared or not, a rare high-entropy component together with
 *              screen, time zone, language and platform all equal (the same machine seen
 *              from another place: a second browser that keeps its own font list, or a
 *              private window that keeps its WebGL read-out, after a move or behind a
 *              carrier NAT), when another of the attempt's components is common here
 *              (RARITY.commonComponentOthers): among many devices of its kind, a component
 *              at most one other member shows is the device's own, not its model's
 *  - possible: an uncrowded address alone; a rare component on the same address or network
 *  - nothing:  a popular fingerprint or component across networks, a crowded address alone
 *
 * A partial match is at least two equal components, one of them high-entropy: time zone,
 * language, platform and screen alone are shared by whole countries. A fingerprint with no
 * high-entropy component at all never counts as a fingerprint match. On a network staff
 * marked as shared (household, school, carrier NAT) the address and network matches do not
 * count at all; only device evidence does.
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
} & Pick<FingerprintComponentHashes, ComparedHashKey>;

/**
 * The anonymity sets of the new attempt's values: how many members other than the
 * attempt's own show each of them, counted by find_alt_candidates among the newest
 * ANONYMITY_COUNT_CAP stored attempts carrying the value (an index range, never a scan),
 * so a count reaches at most the cap. 0 when the attempt lacks the value.
 */
export interface AnonymityCounts {
  fingerprint: number;
  /** distinct networks (/24, /48) the other members showing the fingerprint were on */
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
}

export const ANONYMITY_COUNT_CAP = 64;

/** What scoring knows about the attempt beyond the pair: its network's shared marking and its anonymity sets. */
export interface ScoringContext {
  sharedNetwork: boolean;
  counts: AnonymityCounts;
}

/** The rarity thresholds of the rule (measured on the labelled P8 population). */
export const RARITY = {
  /** same address + same fingerprint is certain when at most this many other members show the fingerprint */
  certainFingerprintOthers: 0,
  /** same fingerprint elsewhere (with a rare component) is medium up to this many other members */
  mediumFingerprintOthers: 2,
  /** same address + same fingerprint is medium up to this many other members showing both */
  mediumSameAddressOthers: 2,
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
} as const;

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
  /** orders candidates of equal confidence; not a probability */
  score: number;
}

export interface AltScore {
  confidence: AltConfidence | null;
  /** null exactly when confidence is null */
  detectionMethod: DetectedAltMethod | null;
  evidence: AltEvidence;
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
  const fingerprintMatch = sameValue(attempt.fingerprintHash, candidate.fingerprintHash) && hasDeviceIdentity(attempt) && hasDeviceIdentity(candidate);
  const browserMatch = sameValue(attempt.browserTokenHash ?? null, candidate.browserTokenHash ?? null);
  return { ipMatch, networkMatch, fingerprintMatch, browserMatch, ipCounts: ipMatch && !context.sharedNetwork, networkCounts: networkMatch && !context.sharedNetwork };
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
export function canBeFlagged(attempt: AttemptSignals, candidate: AttemptSignals, context: { sharedNetwork: boolean; counts: AnonymityCounts }): boolean {
  const { ipCounts, networkCounts, fingerprintMatch, browserMatch } = matchSignals(attempt, candidate, context);
  const components = compareComponents(attempt, candidate);
  return browserMatch || fingerprintMatch || ipCounts || (networkCounts && countHighEntropyMatches(components) >= 1) || sharesRareComponent(components, context.counts);
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

export function scoreCandidate(attempt: AttemptSignals, candidate: AttemptSignals, context: ScoringContext): AltScore {
  const components = compareComponents(attempt, candidate);
  const matches = matchSignals(attempt, candidate, context);
  const { ipMatch, networkMatch, fingerprintMatch, browserMatch, ipCounts, networkCounts } = matches;
  const shared = sharedCounts(components, matches, context.counts);

  const strongComponentMatches = countHighEntropyMatches(components);
  const componentMatches = COMPARED_COMPONENTS.filter((c) => components[c] === true).length;
  const partialMatch = strongComponentMatches >= 1 && componentMatches >= 2;
  const componentOthers = (c: (typeof HIGH_ENTROPY_COMPONENTS)[number]) => shared[`${c}Shared`] ?? Infinity;
  const rareComponent = HIGH_ENTROPY_COMPONENTS.some((c) => componentOthers(c) <= RARITY.rareComponentOthers);
  const fingerprintOthers = shared.fingerprintShared ?? Infinity;
  const crowdedAddress = ipCounts && othersBesides(context.counts.address) > RARITY.crowdedAddress;
  // a second browser on the same machine; only when both read some device component (the
  // settings of browsers whose every device probe failed say nothing about the machine)
  const bothReadDevice = HIGH_ENTROPY_COMPONENTS.some((c) => components[c] !== undefined);
  const sameMachineSettings = bothReadDevice && components.screen === true && components.timezone === true && components.language === true && components.platform === true;
  // the attempt shows a component many members show: its kind of device is common on this server
  const commonKind = HIGH_ENTROPY_COMPONENTS.some((c) => context.counts[c] >= RARITY.commonComponentOthers);

  let confidence: AltConfidence | null = null;
  let detectionMethod: DetectedAltMethod | null = null;
  const found = (c: AltConfidence, m: DetectedAltMethod) => {
    confidence = c;
    detectionMethod = m;
  };
  // one browser profile: the token, on the same device (a token on another device is a copied
  // cookie, no evidence by itself; default fonts and a common screen are no device either)
  const browserCounts = browserMatch && context.counts.browserTokenNetworks <= RARITY.browserTokenNetworks;
  const sameDevice = fingerprintMatch || strongComponentMatches >= RARITY.browserSameDeviceComponents;
  if (browserCounts && sameDevice) found('certain', 'browser');
  else if (ipCounts && fingerprintMatch && fingerprintOthers <= RARITY.certainFingerprintOthers && rareComponent) found('certain', 'both');
  else if (ipCounts && componentOthers('canvas') === 0 && componentOthers('webgl') === 0 && componentOthers('audio') === 0) found('certain', 'both');
  else if (ipCounts && fingerprintMatch && othersBesides(context.counts.addressFingerprint) <= RARITY.mediumSameAddressOthers) found('medium', 'both');
  else if (fingerprintMatch && fingerprintOthers <= RARITY.mediumFingerprintOthers && rareComponent) found('medium', 'fingerprint');
  else if (ipCounts && rareComponent && componentMatches >= 2) found('medium', 'both');
  else if (ipCounts && !crowdedAddress && partialMatch) found('medium', 'both');
  else if (ipCounts && !crowdedAddress && sameMachineSettings) found('medium', 'both');
  else if (rareComponent && commonKind && sameMachineSettings) found('medium', 'fingerprint');
  else if (ipCounts && !crowdedAddress) found('possible', 'ip');
  else if (ipCounts && rareComponent) found('possible', 'ip');
  else if (networkCounts && rareComponent) found('possible', 'network');

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
      score,
      ...shared,
    },
  };
}

/** True when `a` is a stronger finding than `b` (confidence first, then score). */
export function isStrongerScore(a: AltScore, b: AltScore | undefined): boolean {
  if (!b) return true;
  const byRank = confidenceRank(a.confidence) - confidenceRank(b.confidence);
  return byRank !== 0 ? byRank > 0 : a.evidence.score > b.evidence.score;
}
