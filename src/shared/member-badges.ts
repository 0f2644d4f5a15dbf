/**
 * The badges of a member card and the four list filters. One module for the
 * dashboard (web) and the server (which filters in SQL by the same definitions and is
 * tested against these predicates). Pure TypeScript: no DOM, no Node APIs, no imports.
 */

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
}

/** success = green, warning = amber, danger = red (docs/behaviour.md#badges-on-a-member-card); neutral and info for the rest. */
export type BadgeTone = 'success' | 'warning' | 'danger' | 'neutral' | 'info';

export interface MemberBadge {
  /** status: the one precedence badge; vpn and repeat are the additional badges */
  kind: 'status' | 'vpn' | 'repeat';
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
export type MemberStanding = 'certain_alt' | 'suspected_alt' | 'limited' | 'verified' | 'pending';

export type StandingSubject = Pick<BadgeSubject, 'status' | 'rulesConfirmed' | 'manualAltStatus' | 'isLinkedAsAlt'>;

/** A detected alt link that still counts: linked, and staff have not overridden it with a status of their own. */
export function linkCounts(m: Pick<BadgeSubject, 'manualAltStatus' | 'isLinkedAsAlt'>): boolean {
  return m.isLinkedAsAlt && m.manualAltStatus === null;
}

/** First match wins: certain alt, suspected alt, Limited Access, rules confirmed (verified), otherwise pending. */
export function memberStanding(m: StandingSubject): MemberStanding {
  if (m.manualAltStatus === 'certain_alt' || linkCounts(m)) return 'certain_alt';
  if (m.manualAltStatus === 'suspected_alt') return 'suspected_alt';
  if (m.status === 'limited_access') return 'limited';
  if (m.rulesConfirmed) return 'verified';
  return 'pending';
}

/** Whether the member's standing is certain alt (badge rule 2, the certain_alts filter, the button's denial). */
export function isCertainAlt(m: StandingSubject): boolean {
  return memberStanding(m) === 'certain_alt';
}

function altCountBadge(altsFound: number): MemberBadge {
  if (altsFound <= 0) return { kind: 'status', label: 'Verified', tone: 'success' };
  if (altsFound === 1) return { kind: 'status', label: '1 Alt', tone: 'warning' };
  return { kind: 'status', label: `${altsFound} Alts`, tone: 'danger' };
}

/**
 * Badge precedence, first match wins (docs/behaviour.md#badges-on-a-member-card). "Linked as alt" in rules 1 and 2 is a link
 * that counts (linkCounts): a link staff overrode with a manual status reads as no link.
 * Rules 2 to 5 are the standing; rule 1 comes first so a Limited Access member without a
 * counting link reads 'Unverified' whatever their standing.
 */
export function statusBadge(m: BadgeSubject): MemberBadge {
  if (m.status === 'limited_access' && !linkCounts(m)) return { kind: 'status', label: 'Unverified', tone: 'neutral' };
  switch (memberStanding(m)) {
    case 'certain_alt':
      return { kind: 'status', label: 'Certain Alt', tone: 'danger' };
    case 'suspected_alt':
      return { kind: 'status', label: 'Suspected Alt', tone: 'warning' };
    case 'verified':
      return altCountBadge(m.altsFound);
    case 'limited':
      return { kind: 'status', label: 'Unverified', tone: 'neutral' };
    case 'pending':
      return { kind: 'status', label: 'Pending', tone: 'neutral' };
  }
}

/** The precedence badge, then a VPN badge (with the count above 1) and an 'Nx' badge above 1 verification. */
export function memberBadges(m: BadgeSubject): MemberBadge[] {
  const badges = [statusBadge(m)];
  if (m.usedVpn) badges.push({ kind: 'vpn', label: m.vpnAttempts > 1 ? `VPN (${m.vpnAttempts})` : 'VPN', tone: 'warning' });
  if (m.verificationCount > 1) badges.push({ kind: 'repeat', label: `${m.verificationCount}x`, tone: 'info' });
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
