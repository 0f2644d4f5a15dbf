import type { SQL } from 'drizzle-orm';
import type { Clock } from '../../clock';
import type { Executor } from '../../db/client';
import type { FingerprintComponentHashes } from '../fingerprint';
import { accountCreatedMs } from '../../shared/discord-snowflake';
import {
  buildAltCandidateQuery,
  candidateProbe,
  scoringContext,
  type AltCandidateRepository,
  type CandidateAttempt,
  type CandidateLookup,
} from './alt-candidates.repository';
import type { AltCounters, AltLinkRepository, LinkChange } from './alt-links.repository';
import {
  isStrongerScore,
  scoreCandidate,
  type AltConfidence,
  type AltEvidence,
  type AltScore,
  type AttemptSignals,
  type DetectedAltMethod,
} from './alt-scoring';

/** The new attempt's evidence: the same values the verification attempt row stores. */
export type AltDetectionAttempt = AttemptSignals & Partial<Pick<FingerprintComponentHashes, 'hardwareHash'>>;

export interface DetectAltsInput {
  /**
   * the member the attempt belongs to (already inserted in this transaction); with its
   * stored counters, a detection that changes no link writes nothing more
   */
  member: { id: number; discordId: string; createdAt: Date; counters?: AltCounters };
  attempt: AltDetectionAttempt;
  /**
   * the candidate lookup when the caller read it already, in this transaction, with
   * `lookupQuery` inside its own statement (one round trip fewer); read here otherwise
   */
  lookup?: CandidateLookup;
}

export interface DetectedAlt {
  otherMemberId: number;
  otherDiscordId: string;
  otherUsername: string;
  /** what the member of the attempt is in the link */
  memberIs: 'main' | 'alt';
  /** the link as stored after this detection (a stronger earlier finding is kept) */
  confidence: AltConfidence;
  detectionMethod: string;
  /** this detection's own finding */
  detected: { confidence: AltConfidence; detectionMethod: DetectedAltMethod; evidence: AltEvidence };
  change: LinkChange;
}

export interface AltDetectionResult {
  alts: DetectedAlt[];
  /** the member's counters after detection */
  altsFound: number;
  isLinkedAsAlt: boolean;
}

export interface AltDetectionDeps {
  attempts: AltCandidateRepository;
  links: AltLinkRepository;
  clock: Clock;
  /** most candidate attempts read per branch and in all (DEFAULT_CANDIDATE_LIMIT) */
  candidateLimit?: number;
}

export interface AltDetectionService {
  /**
   * Finds the member's likely other accounts for a new attempt and stores the links
   * with their evidence, inside the caller's transaction (member +
   * attempt + links commit together). The older account (member created first, then
   * lower id) is the main. Recounts `alts_found` / `is_linked_as_alt` on every member
   * whose link changed. Never changes `manual_alt_status`, never links a member to
   * itself. On PostgreSQL, two transactions touching the same members may deadlock;
   * the caller retries its transaction on SQLSTATE 40P01/40001.
   */
  detectAlts(tx: Executor, input: DetectAltsInput): Promise<AltDetectionResult>;
  /**
   * The candidate lookup of `attempt` as an SQL expression (find_alt_candidates' JSON value,
   * read with `candidateLookupFrom`), for a caller to run inside a statement of its own,
   * such as the one that writes the member (`excludeMemberId` then names it in SQL); null
   * when the attempt has nothing to look up by.
   */
  lookupQuery(attempt: AltDetectionAttempt, excludeMemberId: number | SQL): SQL | null;
}

function isOlder(a: { id: number; createdAt: Date }, b: { id: number; createdAt: Date }): boolean {
  const byTime = a.createdAt.getTime() - b.createdAt.getTime();
  return byTime !== 0 ? byTime < 0 : a.id < b.id;
}

export function createAltDetectionService(deps: AltDetectionDeps): AltDetectionService {
  return {
    lookupQuery(attempt, excludeMemberId) {
      return buildAltCandidateQuery(candidateProbe(attempt), { excludeMemberId, limit: deps.candidateLimit });
    },

    async detectAlts(tx, { member, attempt, lookup: readBefore }) {
      const now = deps.clock.now();
      // the candidates, the network's shared marking and the anonymity sets, in one statement
      const lookup =
        readBefore ??
        (await deps.attempts.findCandidates(tx, candidateProbe(attempt), { excludeMemberId: member.id, limit: deps.candidateLimit }));
      const { candidates } = lookup;
      // the account's age is taken when the attempt is made; its creation time is in its Discord id
      const context = { ...scoringContext(attempt, lookup), attemptAtMs: now.getTime() };
      const signals: AttemptSignals = { ...attempt, accountCreatedMs: attempt.accountCreatedMs ?? accountCreatedMs(member.discordId) };

      const best = new Map<number, { candidate: CandidateAttempt; score: AltScore }>();
      for (const candidate of candidates) {
        if (candidate.memberId === member.id) continue;
        const score = scoreCandidate(signals, candidate, context);
        if (!score.confidence) continue;
        const current = best.get(candidate.memberId);
        if (isStrongerScore(score, current?.score)) best.set(candidate.memberId, { candidate, score });
      }

      // a stable order keeps lock order stable between concurrent detections
      const found = [...best].sort(([a], [b]) => a - b);
      const { saved, counters } = await deps.links.saveDetected(
        tx,
        member.id,
        found.map(([otherId, { candidate, score }]) => {
          const memberIsMain = isOlder(member, candidate.member);
          return {
            mainMemberId: memberIsMain ? member.id : otherId,
            altMemberId: memberIsMain ? otherId : member.id,
            confidence: score.confidence!,
            detectionMethod: score.detectionMethod!,
            evidence: score.evidence,
          };
        }),
        now,
      );
      const alts = found.map(([otherId, { candidate, score }], i): DetectedAlt => {
        const { link, change } = saved[i]!;
        return {
          otherMemberId: otherId,
          otherDiscordId: candidate.member.discordId,
          otherUsername: candidate.member.username,
          memberIs: link.mainMemberId === member.id ? 'main' : 'alt',
          confidence: link.confidence,
          detectionMethod: link.detectionMethod,
          detected: { confidence: score.confidence!, detectionMethod: score.detectionMethod!, evidence: score.evidence },
          change,
        };
      });

      // no link changed: the stored counters are still right (every link change recounts)
      const own = counters?.get(member.id) ??
        member.counters ??
        (await deps.links.recomputeCounters(tx, [member.id])).get(member.id) ?? { altsFound: 0, isLinkedAsAlt: false };
      return { alts, altsFound: own.altsFound, isLinkedAsAlt: own.isLinkedAsAlt };
    },
  };
}
