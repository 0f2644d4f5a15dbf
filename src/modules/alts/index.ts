export {
  scoreCandidate,
  canBeFlagged,
  compareComponents,
  hasDeviceIdentity,
  isStrongerScore,
  confidenceRank,
  COMPARED_COMPONENTS,
  HIGH_ENTROPY_COMPONENTS,
  ANONYMITY_COUNT_CAP,
  RARITY,
  ALT_RULES,
  isYoungAccount,
  isRarityJudged,
  type AltRule,
  type AnonymityCounts,
  type ScoringContext,
  type SharedCounts,
  type AltConfidence,
  type AltEvidence,
  type AltScore,
  type AttemptSignals,
  type ComparedComponent,
  type ComponentComparison,
  type DetectedAltMethod,
} from './alt-scoring';
export {
  createAltDetectionService,
  type AltDetectionDeps,
  type AltDetectionService,
  type AltDetectionResult,
  type AltDetectionAttempt,
  type DetectAltsInput,
  type DetectedAlt,
} from './alt-detection.service';
export { linkChangeFor, type StoredLinkState, type AltLinkMethod } from './alt-link-policy';
export { altCandidateRepository, findAltCandidates, buildAltCandidateQuery, candidateLookupFrom, type LookupRow, candidateProbe, scoringContext, DEFAULT_CANDIDATE_LIMIT, type AltCandidateRepository, type CandidateAttempt, type CandidateLookup, type CandidateProbe, signalsFromRow, type AttemptSignalsRow } from './alt-candidates.repository';
export {
  altLinkRepository,
  saveDetectedLinks,
  type SavedLinks,
  recomputeAltCounters,
  listLinkedMemberIds,
  listAltsForMember,
  listAltsForMembers,
  componentsFromEvidence,
  type AltLink,
  type AltLinkRepository,
  type AltCounters,
  type AltDetectionMethod,
  type FingerprintComponentsView,
  type LinkChange,
  type MemberAlt,
} from './alt-links.repository';
export { sharedNetworkRepository, isSharedNetwork, findSharedNetwork, markSharedNetwork, unmarkSharedNetwork, listSharedNetworks, type SharedNetwork, type SharedNetworkRepository } from './shared-networks.repository';
export { findLinkOfMemberForUpdate, listCountingLinksOfMemberForUpdate, markLinksDismissed, markLinkReopened, type LinkForReview, type Dismisser } from './alt-link-dismissal.repository';
export { ALT_RESCORE_JOB, RESCORE_ATTEMPTS_PER_MEMBER, RESCORE_BATCH_SIZE, RESCORE_CURSOR_KEY, rescoreAltLinks } from './alt-rescoring';
export type { RescoreResult } from './alt-rescoring';
