import { render, screen } from '@testing-library/react';
import type { BadgeSubject } from '@shared/member-badges';
import { buildUser } from '@/test/admin-fixtures';
import { MemberBadgeList } from './member-badge-list';

function rendered(overrides: Partial<BadgeSubject>): Array<[string, string | null]> {
  const { unmount } = render(<MemberBadgeList member={buildUser(overrides)} />);
  const badges = screen
    .getAllByRole('listitem')
    .map((item): [string, string | null] => [item.textContent ?? '', item.firstElementChild?.getAttribute('data-color') ?? null]);
  unmount();
  return badges;
}

describe('MemberBadgeList (badge precedence and colours)', () => {
  it.each<[string, Partial<BadgeSubject>, Array<[string, string]>]>([
    ['limited access, not linked', { status: 'limited_access', rulesConfirmed: false }, [['Limited Access', 'blue']]],
    ['limited access but linked as alt', { status: 'limited_access', isLinkedAsAlt: true }, [['Certain Alt', 'red']]],
    ['manual certain alt', { manualAltStatus: 'certain_alt' }, [['Certain Alt', 'red']]],
    ['manual suspected alt', { manualAltStatus: 'suspected_alt', altsFound: 3 }, [['Suspected Alt', 'amber']]],
    ['rules confirmed, no alts', {}, [['Verified', 'green']]],
    [
      'rules confirmed, one alt',
      { altsFound: 1 },
      [
        ['Verified', 'green'],
        ['1 Alt', 'amber'],
      ],
    ],
    [
      'rules confirmed, two alts',
      { altsFound: 2 },
      [
        ['Verified', 'green'],
        ['2 Alts', 'red'],
      ],
    ],
    ['rules not confirmed', { rulesConfirmed: false }, [['Pending', 'gray']]],
    [
      'an open appeal',
      { status: 'limited_access', openAppealId: 4 },
      [
        ['Limited Access', 'blue'],
        ['Appeal open', 'amber'],
      ],
    ],
    [
      'VPN once',
      { usedVpn: true, vpnAttempts: 1 },
      [
        ['Verified', 'green'],
        ['VPN', 'amber'],
      ],
    ],
    [
      'VPN three times, verified twice',
      { usedVpn: true, vpnAttempts: 3, verificationCount: 2 },
      [
        ['Verified', 'green'],
        ['VPN (3)', 'amber'],
        ['2x', 'blue'],
      ],
    ],
  ])('%s', (_label, overrides, expected) => {
    expect(rendered(overrides)).toEqual(expected);
  });
});
