import { type AltDetectionService, candidateLookupFrom, type LookupRow, type AltConfidence } from '../alts';
import type { AltDetector } from './verification.service';

/**
 * The verification flow's view of alt detection: the other member of each link the
 * attempt produced, and which side of it this member is. A pair staff dismissed ("Not the
 * same person") is no alt: it is left out (no log line, nothing in the audit row). `onCreated` sees every link
 * that did not exist before (the composition root counts them in a metric).
 */
export function createAltDetector(altService: AltDetectionService, onCreated?: (confidence: AltConfidence) => void): AltDetector {
  return {
    lookupQuery: (attempt, memberId) => altService.lookupQuery(attempt, memberId),

    async detect(tx, { member, attempt, lookup }) {
      // the lookup read in the sign-in's statement: find_alt_candidates' JSON (null: nothing to look up by)
      const readBefore = lookup === undefined ? undefined : candidateLookupFrom(lookup as LookupRow['lookup'] | null);
      const result = await altService.detectAlts(tx, { member, attempt, lookup: readBefore });
      if (onCreated) for (const alt of result.alts) if (alt.change === 'created') onCreated(alt.confidence);
      const alts = result.alts
        .filter((alt) => alt.change !== 'dismissed')
        .map((alt) => ({
          discordId: alt.otherDiscordId,
          username: alt.otherUsername,
          confidence: alt.confidence,
          detectionMethod: alt.detectionMethod,
          memberIsAlt: alt.memberIs === 'alt',
        }));
      // the other side became the alt of a certain link (new, or strengthened to certain): its standing changed
      const madeCertainAlt = result.alts
        .filter(
          (alt) => alt.memberIs === 'main' && alt.confidence === 'certain' && (alt.change === 'created' || alt.change === 'strengthened'),
        )
        .map((alt) => alt.otherDiscordId);
      return { alts, isLinkedAsAlt: result.isLinkedAsAlt, madeCertainAlt };
    },
  };
}
