import type { AdminNoteView, AltEntry, UserRecord } from '../../shared/admin-api';
import type { AdminNote } from './member-notes.repository';
import type { MemberAlt } from '../alts';
import type { Member } from './members.repository';

export type { AdminNoteView, AltEntry, UserDetail, UserRecord } from '../../shared/admin-api';

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
    discordId: a.discordId,
    username: a.username,
    avatarUrl: a.avatarUrl,
    confidence: a.confidence,
    detectionMethod: a.detectionMethod,
    fingerprintComponents: a.fingerprintComponents,
    ...(a.deviceProfileShared ? { deviceProfileShared: a.deviceProfileShared } : {}),
  };
}

export function toNoteView(n: AdminNote): AdminNoteView {
  return { id: n.id, note: n.note, authorName: n.authorName, createdAt: n.createdAt.toISOString() };
}

const DISCORD_EPOCH_MS = 1_420_070_400_000n;

/** When a Discord account was created: the top 42 bits of its snowflake are ms since 2015. */
export function snowflakeCreationDate(discordId: string): string {
  return new Date(Number((BigInt(discordId) >> 22n) + DISCORD_EPOCH_MS)).toISOString();
}
