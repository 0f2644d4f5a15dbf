import type { ALT_CONFIDENCES } from '../../db/schema';
import { COMPARED_FINGERPRINT_COMPONENTS } from '../../shared/fingerprint';
import type { FingerprintComponentHashes } from '../fingerprint/fingerprint-components';

/**
 * Alt-account scoring (DESIGN.md §8), pure: the one place that decides how sure we
 * are that two verification attempts came from one person.
 *
 *  - certain:  same IP and (same fingerprint or a strong component match)
 *  - medium:   same fingerprint alone, or same IP with a partial component match
 *  - possible: same IP alone, or same network with a partial component match
 *
 * A strong component match is canvas + WebGL + audio all equal, or at least three of
 * the four high-entropy components (canvas, WebGL, audio, fonts) plus the screen. A
 * partial match is at least two equal components, one of them high-entropy: time zone,
 * language, platform and screen alone are shared by whole countries. A fingerprint
 * with no high-entropy component at all never counts as a fingerprint match. On a network
 * staff marked as shared (household, school, carrier NAT) the IP and network matches
 * do not count at all; only device evidence does.
 */

export const COMPARED_COMPONENTS = COMPARED_FINGERPRINT_COMPONENTS;
export type ComparedComponent = (typeof COMPARED_COMPONENTS)[number];
export const HIGH_ENTROPY_COMPONENTS = ['canvas', 'webgl', 'audio', 'fonts'] as const satisfies readonly ComparedComponent[];

/** Per component: true (equal), false (different), undefined (absent on either side). */
export type ComponentComparison = { [K in ComparedComponent]: boolean | undefined };

export type AltConfidence = (typeof ALT_CONFIDENCES)[number];
/** How a detected link was found ('manual' links are made by staff, never by scoring). */
export type DetectedAltMethod = 'ip' | 'fingerprint' | 'both' | 'network';

type ComparedHashKey = `${ComparedComponent}Hash`;

/** What scoring reads from a verification attempt (null = not recorded, e.g. Limited Access). */
export type AttemptSignals = {
  ipHash: string | null;
  networkHash: string | null;
  fingerprintHash: string | null;
} & Pick<FingerprintComponentHashes, ComparedHashKey>;

export interface AltEvidence {
  components: ComponentComparison;
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

const WEIGHTS = { ip: 40, network: 10, fingerprint: 50, highComponent: 8, lowComponent: 2 } as const;

/** The address, network and fingerprint matches, and which of them count on this network. */
interface SignalMatches {
  ipMatch: boolean;
  networkMatch: boolean;
  fingerprintMatch: boolean;
  ipCounts: boolean;
  networkCounts: boolean;
}

function matchSignals(attempt: AttemptSignals, candidate: AttemptSignals, context: { sharedNetwork: boolean }): SignalMatches {
  const ipMatch = sameValue(attempt.ipHash, candidate.ipHash);
  const networkMatch = sameValue(attempt.networkHash, candidate.networkHash);
  const fingerprintMatch = sameValue(attempt.fingerprintHash, candidate.fingerprintHash) && hasDeviceIdentity(attempt) && hasDeviceIdentity(candidate);
  return { ipMatch, networkMatch, fingerprintMatch, ipCounts: ipMatch && !context.sharedNetwork, networkCounts: networkMatch && !context.sharedNetwork };
}

function countHighEntropyMatches(components: ComponentComparison): number {
  return HIGH_ENTROPY_COMPONENTS.filter((c) => components[c] === true).length;
}

/**
 * True when scoreCandidate can flag the candidate at all (at any confidence): it must
 * share the fingerprint, or the address (on a network not marked shared), or the
 * network (not marked shared) together with at least one high-entropy component (a
 * network match flags only with a partial match, which needs one). Device components
 * alone never flag. The candidate lookup (src/db/functions/find_alt_candidates.sql, called
 * with candidateProbe) reads exactly these candidates, each branch through its own index.
 */
export function canBeFlagged(attempt: AttemptSignals, candidate: AttemptSignals, context: { sharedNetwork: boolean }): boolean {
  const { ipCounts, networkCounts, fingerprintMatch } = matchSignals(attempt, candidate, context);
  return fingerprintMatch || ipCounts || (networkCounts && countHighEntropyMatches(compareComponents(attempt, candidate)) >= 1);
}

export function scoreCandidate(attempt: AttemptSignals, candidate: AttemptSignals, context: { sharedNetwork: boolean }): AltScore {
  const components = compareComponents(attempt, candidate);
  const { ipMatch, networkMatch, fingerprintMatch, ipCounts, networkCounts } = matchSignals(attempt, candidate, context);

  const strongComponentMatches = countHighEntropyMatches(components);
  const componentMatches = COMPARED_COMPONENTS.filter((c) => components[c] === true).length;
  const strongMatch =
    (components.canvas === true && components.webgl === true && components.audio === true) ||
    (strongComponentMatches >= 3 && components.screen === true);
  const partialMatch = strongComponentMatches >= 1 && componentMatches >= 2;

  let confidence: AltConfidence | null = null;
  let detectionMethod: DetectedAltMethod | null = null;
  if (ipCounts && (fingerprintMatch || strongMatch)) {
    confidence = 'certain';
    detectionMethod = 'both';
  } else if (fingerprintMatch) {
    confidence = 'medium';
    detectionMethod = 'fingerprint';
  } else if (ipCounts && partialMatch) {
    confidence = 'medium';
    detectionMethod = 'both';
  } else if (ipCounts) {
    confidence = 'possible';
    detectionMethod = 'ip';
  } else if (networkCounts && partialMatch) {
    confidence = 'possible';
    detectionMethod = 'network';
  }

  const highEqual = strongComponentMatches;
  const lowEqual = componentMatches - strongComponentMatches;
  const score =
    (ipCounts ? WEIGHTS.ip : 0) +
    (networkCounts && !ipCounts ? WEIGHTS.network : 0) +
    (fingerprintMatch ? WEIGHTS.fingerprint : 0) +
    highEqual * WEIGHTS.highComponent +
    lowEqual * WEIGHTS.lowComponent;

  return {
    confidence,
    detectionMethod,
    evidence: {
      components,
      ipMatch,
      networkMatch,
      fingerprintMatch,
      sharedNetwork: context.sharedNetwork,
      strongComponentMatches,
      componentMatches,
      score,
    },
  };
}

/** True when `a` is a stronger finding than `b` (confidence first, then score). */
export function isStrongerScore(a: AltScore, b: AltScore | undefined): boolean {
  if (!b) return true;
  const byRank = confidenceRank(a.confidence) - confidenceRank(b.confidence);
  return byRank !== 0 ? byRank > 0 : a.evidence.score > b.evidence.score;
}
