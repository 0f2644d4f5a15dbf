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

/** Certain alt by staff override or by a certain link (badge rule 2 and the certain_alts filter). */
export function isCertainAlt(m: Pick<BadgeSubject, 'manualAltStatus' | 'isLinkedAsAlt'>): boolean {
  return m.manualAltStatus === 'certain_alt' || m.isLinkedAsAlt;
}

function altCountBadge(altsFound: number): MemberBadge {
  if (altsFound <= 0) return { kind: 'status', label: 'Verified', tone: 'success' };
  if (altsFound === 1) return { kind: 'status', label: '1 Alt', tone: 'warning' };
  return { kind: 'status', label: `${altsFound} Alts`, tone: 'danger' };
}

/** Badge precedence, first match wins (docs/behaviour.md#badges-on-a-member-card). */
export function statusBadge(m: BadgeSubject): MemberBadge {
  if (m.status === 'limited_access' && !m.isLinkedAsAlt) return { kind: 'status', label: 'Unverified', tone: 'neutral' };
  if (isCertainAlt(m)) return { kind: 'status', label: 'Certain Alt', tone: 'danger' };
  if (m.manualAltStatus === 'suspected_alt') return { kind: 'status', label: 'Suspected Alt', tone: 'warning' };
  if (m.rulesConfirmed) return altCountBadge(m.altsFound);
  return { kind: 'status', label: 'Pending', tone: 'neutral' };
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

type FilterSubject = Pick<BadgeSubject, 'status' | 'rulesConfirmed' | 'manualAltStatus' | 'isLinkedAsAlt'>;

/** List filters (docs/behaviour.md#member-list-filters-and-search). The server's SQL (members.repository.ts) is tested against these. */
export const MEMBER_FILTER_PREDICATES: Record<MemberFilter, (m: FilterSubject) => boolean> = {
  all: () => true,
  certain_alts: (m) => isCertainAlt(m),
  verified: (m) => m.rulesConfirmed && m.status === 'verified' && !isCertainAlt(m),
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
