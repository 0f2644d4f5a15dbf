/** The members module, as the rest of the server uses it. */
export { actorLabel, auditActorOf, type MemberActor } from './member-actor';
export { eraseMembers } from './member-erase.repository';
export { findMemberRowByDiscordId, type MemberRow } from './member-row.repository';
export { toUserRecord } from './member-views';
export { findMemberByDiscordId, markManuallyVerified, setManualAltStatus, toMember, type Member } from './members.repository';
export { openAppealIdsOf } from './open-appeals.repository';
export { retentionExpiry } from './retention-expiry';
export { strongestCountingLink } from './standing-reason';
