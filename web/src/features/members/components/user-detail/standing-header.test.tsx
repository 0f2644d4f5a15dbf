import { render, screen, within } from '@testing-library/react';
import type { UserDetail } from '../../api/members';
import { buildDetail } from '@/test/admin-fixtures';
import { StandingHeader, verificationStatusText } from './standing-header';

function standing(overrides: Partial<UserDetail>) {
  const { unmount } = render(<StandingHeader user={buildDetail(overrides)} />);
  const section = screen.getByTestId('standing');
  const badges = within(section)
    .getAllByRole('listitem')
    .map((item) => item.textContent);
  const fact = (label: string) => within(section).getByText(label).parentElement?.querySelector('dd')?.textContent;
  const result = {
    badges,
    reason: within(section).getByTestId('standing-reason').textContent,
    status: fact('Verification status'),
    verifications: fact('Verifications'),
    first:
      within(section).getByText('First verification').parentElement?.querySelector('time')?.getAttribute('dateTime') ??
      fact('First verification'),
  };
  unmount();
  return result;
}

describe('StandingHeader', () => {
  it('a Limited Access member with two VPN attempts: the card’s badges, the provider and the reason', () => {
    expect(
      standing({
        status: 'limited_access',
        rulesConfirmed: false,
        usedVpn: true,
        vpnAttempts: 2,
        vpnProvider: 'NordVPN',
        verificationStatus: 'limited',
        verificationCount: 1,
        standingReason: 'Limited Access after a VPN check (NordVPN)',
      }),
    ).toEqual({
      badges: ['Limited Access', 'VPN (2)'],
      reason: 'Limited Access after a VPN check (NordVPN)',
      status: 'Limited Access (VPN: NordVPN)',
      verifications: '1',
      first: '2026-11-01T09:00:00.000Z',
    });
  });

  it('a certain alt says so, and why', () => {
    expect(
      standing({
        isLinkedAsAlt: true,
        verificationStatus: 'verified',
        verificationCount: 3,
        standingReason: 'Shared device profile and address with @main',
      }),
    ).toMatchObject({
      badges: ['Certain Alt', '3x'],
      reason: 'Shared device profile and address with @main',
      status: 'Verified',
      verifications: '3',
    });
  });

  it('a suspected alt marked by staff', () => {
    expect(
      standing({ manualAltStatus: 'suspected_alt', verificationStatus: 'verified', standingReason: 'Marked suspected alt by staff' }),
    ).toMatchObject({
      badges: ['Suspected Alt'],
      reason: 'Marked suspected alt by staff',
    });
  });

  it('a clean member: nothing flagged', () => {
    expect(standing({ verificationStatus: 'verified' })).toMatchObject({
      badges: ['Verified'],
      reason: 'Nothing flagged: no alt link, staff override or hold.',
      status: 'Verified',
    });
  });

  it('a record that never verified (Manual Entry) says Never', () => {
    expect(standing({ verificationCount: 0, firstVerifiedAt: null, lastVerifiedAt: null, source: 'manual' })).toMatchObject({
      verifications: '0',
      first: 'Never',
    });
  });
});

describe('verificationStatusText', () => {
  const base = buildDetail();
  it.each<[string, Partial<UserDetail>, string]>([
    ['limited with a provider', { status: 'limited_access', usedVpn: true, vpnProvider: 'Mullvad' }, 'Limited Access (VPN: Mullvad)'],
    ['limited after a VPN of no known provider', { status: 'limited_access', usedVpn: true }, 'Limited Access (VPN)'],
    ['limited by a rule', { status: 'limited_access', admission: { action: 'limited', reason: 'young account' } }, 'Limited Access'],
    ['held for review', { admission: { action: 'review', reason: null } }, 'Held for staff review'],
    ['verified', { verificationStatus: 'verified' }, 'Verified'],
    ['pending', { verificationStatus: 'pending' }, 'Pending'],
    ['denied', { verificationStatus: 'denied' }, 'Denied'],
  ])('%s', (_case, overrides, text) => {
    expect(verificationStatusText({ ...base, ...overrides })).toBe(text);
  });
});
