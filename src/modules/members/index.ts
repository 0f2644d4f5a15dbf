/** The members module, as the rest of the server uses it. */
export { actorLabel, auditActorOf, type MemberActor } from './member-actor';
export { eraseMembers } from './member-erase.repository';
export { findMemberRowByDiscordId, type MemberRow } from './member-row.repository';
export { toUserRecord } from './member-views';
export { findMemberByDiscordId, markManuallyVerified, setManualAltStatus, toMember, type Member } from './members.repository';
export { openAppealIdsOf } from './open-appeals.repository';
export { retentionExpiry } from './retention-expiry';
export { strongestCountingLink } from './standing-reason';
export type { DiscordStaff } from './member-actor';
export { STORED_COMPONENTS } from './member-privacy.repository';
export type { StoredAttempt } from './member-privacy.repository';
export { createMemberPrivacyService } from './member-privacy.service';
export type { MemberPrivacyService, StoredDataReport } from './member-privacy.service';
export type { AltEntry, UserDetail } from './member-views';
export {
  ALREADY_REMOVED_FROM_CARD,
  ALREADY_VERIFIED,
  ALT_STATUS_UNCHANGED,
  ALT_STATUS_WORDS,
  NOT_VERIFIED,
  createMembersService,
  decodeMemberCursor,
} from './members.service';
export type { MembersService } from './members.service';
export {
  ALREADY_SHARED,
  NOT_SHARED,
  NO_NETWORK_ON_RECORD,
  SHARED_NETWORK_LABEL_MAX,
  createSharedNetworkService,
} from './shared-network.service';
export type { SharedNetworkService, SharedNetworkView } from './shared-network.service';
export { COUNT_LIMITS } from './member-count.repository';
