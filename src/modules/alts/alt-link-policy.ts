import type { DETECTION_METHODS } from '../../db/schema';
import { confidenceRank, type AltConfidence, type DetectedAltMethod } from './alt-scoring';

/** What saving a detected link did to the stored one ('dismissed': staff dismissed the pair, nothing written). */
export type LinkChange = 'created' | 'strengthened' | 'refreshed' | 'kept' | 'dismissed';

/** How a stored link was made: by a detection, or by staff ('manual'). */
export type AltLinkMethod = (typeof DETECTION_METHODS)[number];

/** The part of a stored link the policy reads. */
export interface StoredLinkState {
  confidence: AltConfidence;
  detectionMethod: AltLinkMethod;
  /** staff said "Not the same person" (and have not reopened it) */
  dismissed: boolean;
}

/**
 * The link upgrade policy: what a new detection of a pair does to the link already stored
 * for that pair, in either direction.
 *  - no stored link: the detection is stored ('created');
 *  - a link staff dismissed ("Not the same person") is never re-created, strengthened or
 *    refreshed ('dismissed'): the pair stays apart until staff reopen it;
 *  - a link staff made ('manual') is never rewritten by a detection ('kept');
 *  - a detection ranking lower (confidenceRank) than the stored link leaves it as it is
 *    ('kept'): a stronger earlier finding stands;
 *  - ranking higher, it replaces confidence, method and evidence ('strengthened');
 *  - ranking the same, it replaces method and evidence ('refreshed').
 * The stored link keeps its direction (which member is the main) in every case.
 *
 * save_alt_links (src/db/functions/save_alt_links.sql) applies this rule in the database
 * with the ranks passed from here; alt-link-policy.agreement.int.test.ts checks that the two
 * agree on every combination.
 */
export function linkChangeFor(
  stored: StoredLinkState | null,
  detected: { confidence: AltConfidence; detectionMethod: DetectedAltMethod },
): LinkChange {
  if (!stored) return 'created';
  if (stored.dismissed) return 'dismissed';
  if (stored.detectionMethod === 'manual') return 'kept';
  const byRank = confidenceRank(detected.confidence) - confidenceRank(stored.confidence);
  if (byRank < 0) return 'kept';
  return byRank > 0 ? 'strengthened' : 'refreshed';
}
