import type { AdminNoteView, AltEntry, UserRecord, UserDetail } from '../../shared/admin-api';
import { altEvidenceFacts } from '../../shared/alt-evidence-words';
import { snowflakeDate } from '../../shared/discord-snowflake';
import type { AdminNote } from './member-notes.repository';
import type { MemberAlt } from '../alts';
import type { Member } from './members.repository';

export type { AdminNoteView, AltEntry, UserDetail, UserRecord };

export function toUserRecord(m: Member): UserRecord {
  return {
    id: m.id,
    discordId: m.discordId,
    username: m.username,
    avatarUrl: m.avatarUrl,
    status: m.status,
    rulesConfirmed: m.rulesConfirmed,
    manualAltStatus: m.manualAltStatus,
    isLinkedAsAlt: m.isLinkedAsAlt,
    altsFound: m.altsFound,
    usedVpn: m.usedVpn,
    vpnAttempts: m.vpnAttempts,
    verificationCount: m.verificationCount,
    timestamp: m.verifiedAt.toISOString(),
  };
}

export function toAltEntry(a: MemberAlt): AltEntry {
  return {
    linkId: a.linkId,
    discordId: a.discordId,
    username: a.username,
    avatarUrl: a.avatarUrl,
    confidence: a.confidence,
    detectionMethod: a.detectionMethod,
    fingerprintComponents: a.fingerprintComponents,
    ...(a.deviceProfileShared ? { deviceProfileShared: a.deviceProfileShared } : {}),
    otherIs: a.otherIs,
    evidence: altEvidenceFacts(a.evidence),
    dismissed: a.dismissal ? { at: a.dismissal.at.toISOString(), byName: a.dismissal.byName, reason: a.dismissal.reason } : null,
  };
}

export function toNoteView(n: AdminNote): AdminNoteView {
  return { id: n.id, note: n.note, authorName: n.authorName, createdAt: n.createdAt.toISOString() };
}

/** When a Discord account was created, as the ISO string the staff API returns. */
export function snowflakeCreationDate(discordId: string): string {
  return snowflakeDate(discordId).toISOString();
}
