/**
 * The badges of a member card and the four list filters. One module for the
 * dashboard (web) and the server (which filters in SQL by the same definitions and is
 * tested against these predicates). The words and colours of each standing come from the one
 * vocabulary (member-states.ts). Pure TypeScript: no DOM, no Node APIs.
 */
import { MEMBER_STATES, type BadgeTone, type MemberStanding } from './member-states';

export type { MemberStanding };

export type { BadgeTone };

export type MemberStatus = 'verified' | 'limited_access';
export type ManualAltStatus = 'suspected_alt' | 'certain_alt';

/** The fields of a user record that badges and filters read. */
export interface BadgeSubject {
  status: MemberStatus;
  rulesConfirmed: boolean;
  manualAltStatus: ManualAltStatus | null;
  isLinkedAsAlt: boolean;
  altsFound: number;
  usedVpn: boolean;
  vpnAttempts: number;
  verificationCount: number;
  /** the member's open appeal, when they have one (lists and the detail page say so) */
  openAppealId?: number;
}

export interface MemberBadge {
  /** status: the member's standing; alts, vpn and repeat are the additional badges */
  kind: 'status' | 'alts' | 'vpn' | 'repeat' | 'appeal';
  label: string;
  tone: BadgeTone;
}

/**
 * A member's standing: the one answer to "what is this member" that the badges, the list
 * filters (and the SQL filters tested against them), the Discord button, `/lookup` and the
 * bot's log lines all read.
 *
 * A staff override wins over detection: a detected link counts only while staff have set no
 * alt status. A manual 'suspected_alt' on a linked member means staff reviewed the link and
 * downgraded it, so that member is suspected, not certain; a manual 'certain_alt' makes a
 * member certain with or without a link.
 */

export type StandingSubject = Pick<BadgeSubject, 'status' | 'rulesConfirmed' | 'manualAltStatus' | 'isLinkedAsAlt'>;

/** A detected alt link that still counts: linked, and staff have not overridden it with a status of their own. */
export function linkCounts(m: Pick<BadgeSubject, 'manualAltStatus' | 'isLinkedAsAlt'>): boolean {
  return m.isLinkedAsAlt && m.manualAltStatus === null;
}

/** First match wins: certain alt, suspected alt, Limited Access, rules confirmed (verified), otherwise pending. */
export function memberStanding(m: StandingSubject): MemberStanding {
  if (isCertainAlt(m)) return 'certain_alt';
  if (m.manualAltStatus === 'suspected_alt') return 'suspected_alt';
  if (m.status === 'limited_access') return 'limited';
  if (m.rulesConfirmed) return 'verified';
  return 'pending';
}

/** Whether the member's standing is certain alt (badge rule 2, the certain_alts filter, the button's denial): staff said so, or a link counts. */
export function isCertainAlt(m: Pick<BadgeSubject, 'manualAltStatus' | 'isLinkedAsAlt'>): boolean {
  return m.manualAltStatus === 'certain_alt' || linkCounts(m);
}

/**
 * The standing's badge: its label and colour from the vocabulary (MEMBER_STATES), so a state
 * has one label wherever it is shown. "Linked as alt" is a link that counts (linkCounts): a
 * link staff overrode with a manual status reads as no link.
 */
export function statusBadge(m: StandingSubject): MemberBadge {
  const state = MEMBER_STATES[memberStanding(m)];
  return { kind: 'status', label: state.label, tone: state.tone };
}

/** How many alts a verified member has (docs/behaviour.md#badges-on-a-member-card): '1 Alt' amber, 'N Alts' red; none for 0. */
export function altCountBadge(altsFound: number): MemberBadge | null {
  if (altsFound <= 0) return null;
  if (altsFound === 1) return { kind: 'alts', label: '1 Alt', tone: 'warning' };
  return { kind: 'alts', label: `${altsFound} Alts`, tone: 'danger' };
}

/** A member who asked staff to review their standing and waits for an answer (docs/behaviour.md#appeals). */
export const APPEAL_OPEN_BADGE: MemberBadge = { kind: 'appeal', label: 'Appeal open', tone: 'warning' };

/** The standing badge, the alt count of a verified member, then a VPN badge (with the count above 1), an 'Nx' badge above 1 verification, and 'Appeal open'. */
export function memberBadges(m: BadgeSubject): MemberBadge[] {
  const badges = [statusBadge(m)];
  const alts = memberStanding(m) === 'verified' ? altCountBadge(m.altsFound) : null;
  if (alts) badges.push(alts);
  if (m.usedVpn) badges.push({ kind: 'vpn', label: m.vpnAttempts > 1 ? `VPN (${m.vpnAttempts})` : 'VPN', tone: 'warning' });
  if (m.verificationCount > 1) badges.push({ kind: 'repeat', label: `${m.verificationCount}x`, tone: 'info' });
  if (m.openAppealId !== undefined) badges.push(APPEAL_OPEN_BADGE);
  return badges;
}

export const MEMBER_FILTERS = ['all', 'verified', 'unverified', 'certain_alts'] as const;
export type MemberFilter = (typeof MEMBER_FILTERS)[number];

/** The dropdown labels of the dashboard. */
export const MEMBER_FILTER_LABELS: Record<MemberFilter, string> = {
  all: 'All Users',
  verified: 'Verified Only',
  unverified: 'Unverified Only',
  certain_alts: 'Certain Alts Only',
};

/**
 * The list's heading per filter, before the count: the count is of the members the filter
 * shows, so the heading names them ('Verified Users (N)' counts only verified members).
 */
export const MEMBER_LIST_HEADINGS: Record<MemberFilter, string> = {
  all: 'All Users',
  verified: 'Verified Users',
  unverified: 'Unverified Users',
  certain_alts: 'Certain Alts',
};

type FilterSubject = StandingSubject;

/** List filters (docs/behaviour.md#member-list-filters-and-search). The server's SQL (members.repository.ts) is tested against these. */
export const MEMBER_FILTER_PREDICATES: Record<MemberFilter, (m: FilterSubject) => boolean> = {
  all: () => true,
  certain_alts: (m) => memberStanding(m) === 'certain_alt',
  verified: (m) => m.rulesConfirmed && m.status === 'verified' && memberStanding(m) !== 'certain_alt',
  unverified: (m) => !m.rulesConfirmed || m.status !== 'verified',
};

export function matchesMemberFilter(m: FilterSubject, filter: MemberFilter): boolean {
  return MEMBER_FILTER_PREDICATES[filter](m);
}

/** Search: case-insensitive substring of the username, or substring of the Discord ID. */
export function matchesMemberSearch(m: { username: string; discordId: string }, search: string): boolean {
  const needle = search.trim();
  if (needle === '') return true;
  return m.username.toLowerCase().includes(needle.toLowerCase()) || m.discordId.includes(needle);
}
