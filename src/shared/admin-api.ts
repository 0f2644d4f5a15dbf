/**
 * The staff API's response and request shapes (docs/behaviour.md#records-and-their-fields): one contract
 * the server builds and the dashboard reads. Types only: no runtime code.
 */
import { COMPARED_FINGERPRINT_COMPONENTS } from './fingerprint';
import type { AltEvidenceFacts } from './alt-evidence-words';
import type { BadgeSubject, ManualAltStatus, MemberStatus } from './member-badges';

/** A user record in the list: exactly these fields, the badge fields included. */
export interface UserRecord extends BadgeSubject {
  id: number;
  discordId: string;
  username: string;
  avatarUrl: string | null;
  /** verifiedAt, ISO 8601 */
  timestamp: string;
}

/** GET /api/admin/users: one page, the total for the search and filter, the next page's cursor. */
export interface UserListPage {
  users: UserRecord[];
  total: number;
  /** false when the server estimated or capped the total (very large tables) */
  totalIsExact: boolean;
  /** true when the total is a cap: at least that many match ("1,000+"); false for an exact total or an estimate */
  totalIsCapped: boolean;
  nextCursor: string | null;
}

/** The fingerprint components a match reports on (the dashboard lists them in this order). */
export const FINGERPRINT_COMPONENTS = COMPARED_FINGERPRINT_COMPONENTS;
export type FingerprintComponent = (typeof FINGERPRINT_COMPONENTS)[number];
/** true = matched/validated, false = different/failed, absent = data unavailable. */
export type FingerprintComponents = Partial<Record<FingerprintComponent, boolean>>;

export type AltConfidence = 'certain' | 'medium' | 'possible';

/** One entry of "Identified Alternate Accounts". */
export interface AltEntry {
  /** the link's id: POST …/alt-links/:linkId/dismiss and …/reopen */
  linkId: number;
  discordId: string;
  username: string;
  avatarUrl: string | null;
  confidence: AltConfidence;
  /** browser, ip, fingerprint, both, network or manual */
  detectionMethod: string;
  fingerprintComponents: FingerprintComponents;
  /**
   * how many members besides the two share the matched device profile (fingerprint), on how
   * many networks; atLeast when the count stopped at its cap; absent when the fingerprints differ
   */
  deviceProfileShared?: DeviceProfileShared;
  /** what the other member is in the link: the older 'main' or the newer 'alt' */
  otherIs: 'main' | 'alt';
  /** the stored evidence describeAltEvidence (alt-evidence-words.ts) reads: what the two share and how many other members show it */
  evidence: AltEvidenceFacts;
  /**
   * staff said "Not the same person": the link counts nowhere (its evidence stays listed);
   * null while the link is open
   */
  dismissed: AltDismissal | null;
}

export interface AltDismissal {
  /** ISO 8601 */
  at: string;
  byName: string | null;
  reason: string | null;
}

export interface DeviceProfileShared {
  others: number;
  networks: number | null;
  atLeast: boolean;
}

export interface AdminNoteView {
  id: number;
  note: string;
  authorName: string | null;
  createdAt: string;
}

/** One verification attempt as staff see it (never an IP hash: only whether one was recorded). */
export interface AttemptSummary {
  at: string;
  outcome: 'verified' | 'limited_access' | 'denied';
  vpnVerdict: string;
  vpnProvider: string | null;
  vpnSource: string | null;
  vpnCheckFailed: boolean;
  timezoneMismatch: boolean;
  ipRecorded: boolean;
  networkRecorded: boolean;
  fingerprintRecorded: boolean;
}

/** Where a member stands in Discord: 'verified' once access was granted. */
export type GuildAccessView = 'pending' | 'verified' | 'limited' | 'denied';

/** GET /api/admin/users/:discordId: the user detail record plus what the detail page's sections show. */
export interface UserDetail extends UserRecord {
  /** account creation time read from the snowflake, ISO 8601 */
  creationDate: string;
  fingerprint: string | null;
  fingerprintComponents: FingerprintComponents;
  /** 'verified' once Discord access was granted (then manual verification is not offered) */
  verificationStatus: GuildAccessView;
  /** newest first: the page shows the first */
  adminNotes: AdminNoteView[];
  alts: AltEntry[];
  vpnProvider: string | null;
  serversVerifiedIn: number;
  source: 'web' | 'manual';
  evidence: AttemptSummary[];
  /** whether staff marked the member's network as shared (IP-only / network matches there do not count) */
  sharedNetwork: { marked: boolean; label: string | null };
  /** an admission rule (lockdown, account age) at the last verification: Limited Access, or held until staff release */
  admission?: { action: 'limited' | 'review'; reason: string | null } | null;
  /** the first and the latest verification, ISO 8601; null for a record that never verified (Manual Entry) */
  firstVerifiedAt: string | null;
  lastVerifiedAt: string | null;
  /** why the member stands where they stand, in one sentence ("Same address as @main"); null when there is nothing to explain */
  standingReason: string | null;
}

/** POST /api/admin/manual-entry: the manual entry payload. */
export interface ManualEntryPayload {
  discordId: string;
  username: string;
  avatarUrl: string | null;
  status: MemberStatus;
  rulesConfirmed: 'true' | 'false';
  manualAltStatus: ManualAltStatus | null;
}

/** GET /api/discord/user/:discordId. */
export interface DiscordUserLookupResult {
  username: string;
  avatarUrl: string | null;
}

/**
 * Why a raid alarm was raised: too many verifications, too many young accounts, too much shared evidence,
 * or Discord's own raid detection flagged the server (`incidents_data.raid_detected_at`).
 */
export type RaidReason = 'rate' | 'young_accounts' | 'shared_evidence' | 'discord_detected';

/** One raid alarm as GET /api/admin/lockdown lists it (newest first). */
export interface RaidAlarm {
  id: number;
  /** ISO 8601 */
  raisedAt: string;
  windowMinutes: number;
  verifications: number;
  baseline: number;
  youngPercent: number;
  sharedPercent: number;
  reasons: RaidReason[];
  lockdownStarted: boolean;
}
