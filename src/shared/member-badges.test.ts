import {
  MEMBER_FILTERS,
  matchesMemberFilter,
  matchesMemberSearch,
  memberBadges,
  memberStanding,
  statusBadge,
  type BadgeSubject,
  type MemberFilter,
} from './member-badges';
import { buildBadgeSubject } from './test-support/member-fixtures';

const m = buildBadgeSubject;

describe('statusBadge (badge precedence, first match wins)', () => {
  const table: [string, Partial<BadgeSubject>, string, string][] = [
    ['limited access, not linked', { status: 'limited_access' }, 'Limited Access', 'info'],
    ['manual certain alt beats limited access', { status: 'limited_access', manualAltStatus: 'certain_alt' }, 'Certain Alt', 'danger'],
    ['limited access but linked as alt', { status: 'limited_access', isLinkedAsAlt: true }, 'Certain Alt', 'danger'],
    ['manual certain alt', { manualAltStatus: 'certain_alt' }, 'Certain Alt', 'danger'],
    ['linked as alt', { isLinkedAsAlt: true }, 'Certain Alt', 'danger'],
    // staff reviewed the link and downgraded it: the override wins over detection
    ['staff suspected overrides a detected link', { isLinkedAsAlt: true, manualAltStatus: 'suspected_alt' }, 'Suspected Alt', 'warning'],
    ['staff certain with a detected link', { isLinkedAsAlt: true, manualAltStatus: 'certain_alt' }, 'Certain Alt', 'danger'],
    [
      'limited access, link overridden by staff suspected',
      { status: 'limited_access', isLinkedAsAlt: true, manualAltStatus: 'suspected_alt' },
      'Suspected Alt',
      'warning',
    ],
    ['linked, rules not confirmed', { isLinkedAsAlt: true, rulesConfirmed: false }, 'Certain Alt', 'danger'],
    ['manual suspected alt', { manualAltStatus: 'suspected_alt' }, 'Suspected Alt', 'warning'],
    ['suspected beats rules/alts', { manualAltStatus: 'suspected_alt', altsFound: 4 }, 'Suspected Alt', 'warning'],
    ['rules confirmed, no alts', {}, 'Verified', 'success'],
    ['rules confirmed, one alt: still Verified (the count is its own badge)', { altsFound: 1 }, 'Verified', 'success'],
    ['rules not confirmed', { rulesConfirmed: false }, 'Pending', 'neutral'],
    ['rules not confirmed with alts', { rulesConfirmed: false, altsFound: 3 }, 'Pending', 'neutral'],
  ];
  it.each(table)('%s → %s', (_name, overrides, label, tone) => {
    expect(statusBadge(m(overrides))).toEqual({ kind: 'status', label, tone });
  });
});

describe('memberStanding', () => {
  const table: [string, Partial<BadgeSubject>, string][] = [
    ['plain verified', {}, 'verified'],
    ['rules not confirmed', { rulesConfirmed: false }, 'pending'],
    ['limited access', { status: 'limited_access' }, 'limited'],
    ['limited access, rules not confirmed', { status: 'limited_access', rulesConfirmed: false }, 'limited'],
    ['detected link', { isLinkedAsAlt: true }, 'certain_alt'],
    ['detected link, limited access', { isLinkedAsAlt: true, status: 'limited_access' }, 'certain_alt'],
    ['manual certain alt', { manualAltStatus: 'certain_alt' }, 'certain_alt'],
    ['manual suspected alt', { manualAltStatus: 'suspected_alt' }, 'suspected_alt'],
    ['detected link downgraded by staff to suspected', { isLinkedAsAlt: true, manualAltStatus: 'suspected_alt' }, 'suspected_alt'],
    ['manual suspected alt, limited access', { manualAltStatus: 'suspected_alt', status: 'limited_access' }, 'suspected_alt'],
  ];
  it.each(table)('%s → %s', (_name, overrides, standing) => {
    expect(memberStanding(m(overrides))).toBe(standing);
  });
});

describe('memberBadges (VPN and Nx badges)', () => {
  const table: [string, Partial<BadgeSubject>, string[]][] = [
    ['no extras', {}, ['Verified']],
    ['VPN once', { usedVpn: true, vpnAttempts: 1 }, ['Verified', 'VPN']],
    ['VPN with zero attempts recorded', { usedVpn: true, vpnAttempts: 0 }, ['Verified', 'VPN']],
    ['VPN three times', { usedVpn: true, vpnAttempts: 3 }, ['Verified', 'VPN (3)']],
    ['attempts without the flag show no VPN badge', { usedVpn: false, vpnAttempts: 5 }, ['Verified']],
    ['verified once: no Nx', { verificationCount: 1 }, ['Verified']],
    ['verified twice', { verificationCount: 2 }, ['Verified', '2x']],
    ['all three', { status: 'limited_access', usedVpn: true, vpnAttempts: 2, verificationCount: 3 }, ['Limited Access', 'VPN (2)', '3x']],
    ['verified with one alt', { altsFound: 1 }, ['Verified', '1 Alt']],
    ['verified with seven alts', { altsFound: 7 }, ['Verified', '7 Alts']],
    ['alts of a pending member are not counted on the card', { rulesConfirmed: false, altsFound: 2 }, ['Pending']],
  ];
  it.each(table)('%s', (_name, overrides, labels) => {
    expect(memberBadges(m(overrides)).map((b) => b.label)).toEqual(labels);
  });
});

describe('list filters', () => {
  // [case, overrides, filters it belongs to besides 'all']
  const table: [string, Partial<BadgeSubject>, MemberFilter[]][] = [
    ['plain verified', {}, ['verified']],
    ['rules not confirmed', { rulesConfirmed: false }, ['unverified']],
    ['limited access', { status: 'limited_access' }, ['unverified']],
    ['limited access, rules not confirmed', { status: 'limited_access', rulesConfirmed: false }, ['unverified']],
    ['manual certain alt', { manualAltStatus: 'certain_alt' }, ['certain_alts']],
    ['linked as alt', { isLinkedAsAlt: true }, ['certain_alts']],
    ['linked as alt, rules not confirmed', { isLinkedAsAlt: true, rulesConfirmed: false }, ['unverified', 'certain_alts']],
    ['limited access and linked as alt', { status: 'limited_access', isLinkedAsAlt: true }, ['unverified', 'certain_alts']],
    ['suspected alt still counts as verified', { manualAltStatus: 'suspected_alt' }, ['verified']],
    ['linked, staff suspected: not a certain alt', { isLinkedAsAlt: true, manualAltStatus: 'suspected_alt' }, ['verified']],
    ['linked, staff certain', { isLinkedAsAlt: true, manualAltStatus: 'certain_alt' }, ['certain_alts']],
    ['limited access, manual certain alt', { status: 'limited_access', manualAltStatus: 'certain_alt' }, ['unverified', 'certain_alts']],
  ];
  it.each(table)('%s', (_name, overrides, expected) => {
    const subject = m(overrides);
    const matched = MEMBER_FILTERS.filter((f) => matchesMemberFilter(subject, f));
    expect(matched).toEqual(['all', ...MEMBER_FILTERS.filter((f) => expected.includes(f))]);
  });
});

describe('search', () => {
  const member = { username: 'CoolCat_99', discordId: '123456789012345678' };
  const table: [string, boolean][] = [
    ['', true],
    ['  ', true],
    ['coolcat', true],
    ['COOL', true],
    ['cat_9', true],
    ['4567890', true],
    ['dog', false],
    ['99999', false],
  ];
  it.each(table)('%j → %s', (search, expected) => {
    expect(matchesMemberSearch(member, search)).toBe(expected);
  });
});
