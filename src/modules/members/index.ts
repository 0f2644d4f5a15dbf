/** The members module, as the rest of the server uses it. */
export { actorLabel, auditActorOf, type MemberActor, type DiscordStaff } from './member-actor';
export { eraseMembers } from './member-erase.repository';
export { findMemberRowByDiscordId, type MemberRow } from './member-row.repository';
export { toUserRecord, type AltEntry, type UserDetail } from './member-views';
export { findMemberByDiscordId, markManuallyVerified, setManualAltStatus, toMember, type Member } from './members.repository';
export { openAppealIdsOf } from './open-appeals.repository';
export { retentionExpiry } from './retention-expiry';
export { strongestCountingLink } from './standing-reason';
export { STORED_COMPONENTS, type StoredAttempt } from './member-privacy.repository';
export { createMemberPrivacyService, type MemberPrivacyService, type StoredDataReport } from './member-privacy.service';
export {
  ALREADY_REMOVED_FROM_CARD,
  ALREADY_VERIFIED,
  ALT_STATUS_UNCHANGED,
  ALT_STATUS_WORDS,
  NOT_VERIFIED,
  createMembersService,
  decodeMemberCursor,
  type MembersService,
} from './members.service';
export {
  ALREADY_SHARED,
  NOT_SHARED,
  NO_NETWORK_ON_RECORD,
  SHARED_NETWORK_LABEL_MAX,
  createSharedNetworkService,
  type SharedNetworkService,
  type SharedNetworkView,
} from './shared-network.service';
export { COUNT_LIMITS } from './member-count.repository';
