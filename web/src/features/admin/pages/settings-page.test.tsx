import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { OwnerSettings, SettingsResponse } from '../api/settings';
import { superAdminSession } from '../test-support/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

const settings: OwnerSettings = {
  retentionDays: 30,
  vpnCheckFailure: 'allow',
  certainAltAction: 'none',
  accountAgeMinDays: 0,
  accountAgeAction: 'limited',
  raidWindowMinutes: 10,
  raidMinVerifications: 10,
  raidRateFactor: 5,
  raidYoungAccountDays: 7,
  raidYoungAccountPercent: 50,
  raidSharedEvidencePercent: 30,
  autoLockdown: false,
  lockdownPauseInvites: true,
  lockdownPauseDms: false,
  lockdownVerificationLevel: 'off',
  linkedRoles: false,
  lockdownAction: 'limited',
  verifiedRole: 'Verified',
  limitedRole: 'Limited Access',
  unverifiedRole: 'Unverified',
  staffRole: 'Staff',
  verificationChannel: 'verification',
  logsChannel: 'logs',
};
const response: SettingsResponse = { version: 1, updatedAt: null, settings, defaults: settings, stored: {} };

describe('settings page: a refused role choice', () => {
  it('shows the server\'s refusal (problem and fix) at the role field and keeps the value unsaved', async () => {
    const error = 'The role "Staff" is chosen as both the Verified role and the Staff role. Give each its own role: choose another role for the Verified role or the Staff role (dashboard Settings, or DISCORD_VERIFIED_ROLE / DISCORD_STAFF_ROLE).';
    fetchMock = mockFetch({
      'GET /api/config': { body: { dataRetentionDays: 30 } },
      'GET /api/admin/session': { body: superAdminSession },
      'GET /api/admin/appeals/count': { body: { open: 0 } },
      'GET /api/admin/settings': { body: response },
      'PUT /api/admin/settings': { status: 400, body: { error, field: 'verifiedRole' } },
    });
    renderApp('/admin/settings');
    const user = userEvent.setup();
    const input = await screen.findByLabelText('Verified role');
    await user.tripleClick(input);
    await user.keyboard('Staff');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    // at the field, and in a toast that shows wherever the page is scrolled; the field takes the focus
    expect((await screen.findAllByText(error)).length).toBeGreaterThanOrEqual(2);
    expect(screen.getAllByText('Not saved').length).toBeGreaterThanOrEqual(1);
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveFocus();
    expect(fetchMock.callsTo('PUT', '/api/admin/settings')[0]!.body).toEqual({ verifiedRole: 'Staff' });
  });
});
