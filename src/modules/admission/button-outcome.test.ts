import { decideAtButton, decideButtonOutcome, type ButtonMemberView } from './button-outcome';
import {
  MEMBER_FILTERS,
  MEMBER_FILTER_PREDICATES,
  memberStanding,
  statusBadge,
  type BadgeSubject,
  type MemberStanding,
} from '../../shared/member-badges';

const member = (over: Partial<ButtonMemberView> = {}): ButtonMemberView => ({
  status: 'verified',
  rulesConfirmed: true,
  manualAltStatus: null,
  isLinkedAsAlt: false,
  ...over,
});

describe('decideButtonOutcome', () => {
  it.each<[string, ButtonMemberView | undefined, string]>([
    ['no record', undefined, 'no_record'],
    ['rules not confirmed', member({ rulesConfirmed: false }), 'rules_pending'],
    ['rules not confirmed beats alt', member({ rulesConfirmed: false, isLinkedAsAlt: true }), 'rules_pending'],
    ['detected certain alt', member({ isLinkedAsAlt: true }), 'denied_alt'],
    ['staff marked certain alt', member({ manualAltStatus: 'certain_alt' }), 'denied_alt'],
    ['staff override clears a detected link', member({ isLinkedAsAlt: true, manualAltStatus: 'suspected_alt' }), 'verified'],
    ['suspected alt still verifies', member({ manualAltStatus: 'suspected_alt' }), 'verified'],
    ['limited access', member({ status: 'limited_access' }), 'limited'],
    ['limited access certain alt is denied', member({ status: 'limited_access', manualAltStatus: 'certain_alt' }), 'denied_alt'],
    ['verified', member(), 'verified'],
  ])('%s', (_name, input, expected) => {
    expect(decideButtonOutcome(input)).toBe(expected);
  });
});

describe('decideAtButton: the standing, then the admission rule stored on the member', () => {
  const gated = (over: Partial<ButtonMemberView>, gateAction: 'limited' | 'review' | null) => ({ ...member(over), gateAction });
  it.each<[string, Parameters<typeof decideAtButton>[0], string]>([
    ['no record', undefined, 'no_record'],
    ['held member who has not confirmed the rules', gated({ rulesConfirmed: false }, 'review'), 'rules_pending'],
    ['held for review', gated({}, 'review'), 'held'],
    ['held for review on a VPN', gated({ status: 'limited_access' }, 'review'), 'held'],
    ['kept at Limited Access by a rule', gated({}, 'limited'), 'limited'],
    ['a certain alt is denied, whatever holds them', gated({ isLinkedAsAlt: true }, 'review'), 'denied_alt'],
    ['no rule: the standing decides', gated({ status: 'limited_access' }, null), 'limited'],
    ['no rule, verified', gated({}, null), 'verified'],
  ])('%s', (_name, input, expected) => {
    expect(decideAtButton(input)).toBe(expected);
  });
});

/**
 * Every combination of the fields standing reads (and altsFound, which only the badge reads):
 * the badge, the list filters and the button must all say what the standing says.
 */
describe('the badge, the list filters and the button agree with memberStanding', () => {
  const rows: BadgeSubject[] = [];
  for (const status of ['verified', 'limited_access'] as const)
    for (const rulesConfirmed of [true, false])
      for (const manualAltStatus of [null, 'suspected_alt', 'certain_alt'] as const)
        for (const isLinkedAsAlt of [false, true])
          for (const altsFound of [0, 1, 2])
            rows.push({
              status,
              rulesConfirmed,
              manualAltStatus,
              isLinkedAsAlt,
              altsFound,
              usedVpn: false,
              vpnAttempts: 0,
              verificationCount: 1,
            });

  /** The documented rule, written independently: a staff status first, then a detected link, then status and rules. */
  const expectedStanding = (r: BadgeSubject): MemberStanding => {
    if (r.manualAltStatus !== null) return r.manualAltStatus;
    if (r.isLinkedAsAlt) return 'certain_alt';
    if (r.status === 'limited_access') return 'limited';
    return r.rulesConfirmed ? 'verified' : 'pending';
  };

  it('covers all 72 combinations', () => expect(rows).toHaveLength(72));

  it.each(
    rows.map((r) => [JSON.stringify({ ...r, usedVpn: undefined, vpnAttempts: undefined, verificationCount: undefined }), r] as const),
  )('%s', (_name, r) => {
    const standing = memberStanding(r);
    expect(standing).toBe(expectedStanding(r));
    const certain = standing === 'certain_alt';

    // filters
    expect(MEMBER_FILTER_PREDICATES.certain_alts(r)).toBe(certain);
    expect(MEMBER_FILTER_PREDICATES.verified(r)).toBe(r.rulesConfirmed && r.status === 'verified' && !certain);
    expect(MEMBER_FILTER_PREDICATES.unverified(r)).toBe(!r.rulesConfirmed || r.status === 'limited_access');
    if (MEMBER_FILTER_PREDICATES.verified(r)) expect(['verified', 'suspected_alt']).toContain(standing);

    // button: once rules are confirmed, exactly the certain alts are denied
    const outcome = decideButtonOutcome(r);
    if (!r.rulesConfirmed) expect(outcome).toBe('rules_pending');
    else expect(outcome).toBe(certain ? 'denied_alt' : r.status === 'limited_access' ? 'limited' : 'verified');

    // badge: the standing's one label
    const badge = statusBadge(r).label;
    expect(badge).toBe(
      { certain_alt: 'Certain Alt', suspected_alt: 'Suspected Alt', verified: 'Verified', pending: 'Pending', limited: 'Limited Access' }[
        standing
      ],
    );
    // a red 'Certain Alt' badge is always in 'Certain Alts Only' and denied at the button once rules are confirmed
    if (badge === 'Certain Alt') {
      expect(MEMBER_FILTER_PREDICATES.certain_alts(r)).toBe(true);
      if (r.rulesConfirmed) expect(outcome).toBe('denied_alt');
    }
    if (outcome === 'verified') expect(badge).not.toBe('Certain Alt');
  });

  it('a linked member staff marked suspected: suspected everywhere, verified at the button', () => {
    const r = rows.find(
      (x) => x.status === 'verified' && x.rulesConfirmed && x.manualAltStatus === 'suspected_alt' && x.isLinkedAsAlt && x.altsFound === 1,
    )!;
    expect(memberStanding(r)).toBe('suspected_alt');
    expect(statusBadge(r)).toEqual({ kind: 'status', label: 'Suspected Alt', tone: 'warning' });
    expect(MEMBER_FILTERS.filter((f) => MEMBER_FILTER_PREDICATES[f](r))).toEqual(['all', 'verified']);
    expect(decideButtonOutcome(r)).toBe('verified');
  });
});
