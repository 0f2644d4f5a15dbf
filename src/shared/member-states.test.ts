import { MEMBER_LIST_HEADINGS, memberBadges, memberStanding, statusBadge, type BadgeSubject, type MemberStanding } from './member-badges';
import { MEMBER_STANDINGS, MEMBER_STATES, standingLabel } from './member-states';
import { ALT_STATUS_WORDS } from '../modules/members';
import { buildBadgeSubject } from './test-support/member-fixtures';

/** Every combination of the fields the standing reads. */
function everySubject(): BadgeSubject[] {
  const subjects: BadgeSubject[] = [];
  for (const status of ['verified', 'limited_access'] as const)
    for (const rulesConfirmed of [true, false])
      for (const manualAltStatus of [null, 'suspected_alt', 'certain_alt'] as const)
        for (const isLinkedAsAlt of [true, false])
          for (const altsFound of [0, 1, 3])
            subjects.push(buildBadgeSubject({ status, rulesConfirmed, manualAltStatus, isLinkedAsAlt, altsFound }));
  return subjects;
}

describe('the member-state vocabulary', () => {
  it('has one entry per standing, each with its own label and an explanation', () => {
    expect(Object.keys(MEMBER_STATES).sort()).toEqual([...MEMBER_STANDINGS].sort());
    const labels = MEMBER_STANDINGS.map(standingLabel);
    expect(new Set(labels).size).toBe(labels.length);
    for (const standing of MEMBER_STANDINGS) expect(MEMBER_STATES[standing].explanation).toMatch(/\.$/);
  });

  it('every member reads as exactly its standing: the badge carries the standing label, and no other state label appears', () => {
    const seen = new Set<MemberStanding>();
    for (const subject of everySubject()) {
      const standing = memberStanding(subject);
      seen.add(standing);
      expect(statusBadge(subject)).toEqual({ kind: 'status', label: MEMBER_STATES[standing].label, tone: MEMBER_STATES[standing].tone });
      const stateLabels = memberBadges(subject)
        .map((b) => b.label)
        .filter((label) => MEMBER_STANDINGS.some((s) => standingLabel(s) === label));
      expect(stateLabels).toEqual([standingLabel(standing)]);
    }
    expect([...seen].sort()).toEqual([...MEMBER_STANDINGS].sort());
  });

  it("a Limited Access member's badge says Limited Access, never Unverified", () => {
    const limited = buildBadgeSubject({ status: 'limited_access', rulesConfirmed: true });
    expect(statusBadge(limited).label).toBe('Limited Access');
    for (const subject of everySubject()) expect(memberBadges(subject).map((b) => b.label)).not.toContain('Unverified');
  });

  it('the alt statuses staff set read as the labels of the standings they set', () => {
    expect(ALT_STATUS_WORDS.certain_alt).toBe(MEMBER_STATES.certain_alt.label);
    expect(ALT_STATUS_WORDS.suspected_alt).toBe(MEMBER_STATES.suspected_alt.label);
  });

  it("the list heading names what its count counts: 'Verified Users' only for the verified filter", () => {
    expect(MEMBER_LIST_HEADINGS.verified).toBe('Verified Users');
    expect(
      Object.entries(MEMBER_LIST_HEADINGS)
        .filter(([, heading]) => heading === 'Verified Users')
        .map(([filter]) => filter),
    ).toEqual(['verified']);
  });
});
