import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { OwnerSettings, SettingsResponse } from '../api/settings';
import { superAdminSession } from '@/test/admin-fixtures';

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
  alarmPingRole: null,
};
const response: SettingsResponse = { version: 1, updatedAt: null, settings, defaults: settings, stored: {} };

describe('settings page: a refused role choice', () => {
  it("shows the server's refusal (problem and fix) at the role field and keeps the value unsaved", async () => {
    const error =
      'The role "Staff" is chosen as both the Verified role and the Staff role. Give each its own role: choose another role for the Verified role or the Staff role (dashboard Settings, or DISCORD_VERIFIED_ROLE / DISCORD_STAFF_ROLE).';
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
    await waitFor(() => expect(input).toHaveFocus()); // taken in an effect, after the paint that showed the error
    expect(fetchMock.callsTo('PUT', '/api/admin/settings')[0]!.body).toEqual({ verifiedRole: 'Staff' });
  });
});

describe('settings page: the role to ping for alarms', () => {
  const ROLE = '100000000000000009';
  const label = 'Role to ping for certain alts and raid alarms (role id)';
  const routes = (put: { status?: number; body: unknown }, shown: SettingsResponse = response) => ({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: superAdminSession },
    'GET /api/admin/appeals/count': { body: { open: 0 } },
    'GET /api/admin/settings': { body: shown },
    'PUT /api/admin/settings': put,
  });

  it('is empty (none) by default; a role id typed is sent as it is', async () => {
    const saved = { ...settings, alarmPingRole: ROLE };
    fetchMock = mockFetch(routes({ body: { success: true, ...response, settings: saved, stored: { alarmPingRole: ROLE } } }));
    renderApp('/admin/settings');
    const user = userEvent.setup();
    const input = await screen.findByLabelText(label);
    expect(input).toHaveValue('');
    expect(input).toHaveAttribute('placeholder', 'None');
    await user.type(input, ` ${ROLE} `);
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(await screen.findByText('Settings saved')).toBeInTheDocument();
    expect(fetchMock.callsTo('PUT', '/api/admin/settings')[0]!.body).toEqual({ alarmPingRole: ROLE });
  });

  it('sends an emptied field as null (ping nobody), and shows the default as none', async () => {
    const stored = { ...response, settings: { ...settings, alarmPingRole: ROLE }, stored: { alarmPingRole: ROLE } };
    fetchMock = mockFetch(routes({ body: { success: true, ...response } }, stored));
    renderApp('/admin/settings');
    const user = userEvent.setup();
    const input = await screen.findByLabelText(label);
    expect(input).toHaveValue(ROLE);
    expect(screen.getByText(/Default: none\./)).toBeInTheDocument();
    await user.tripleClick(input);
    await user.keyboard('{Backspace}');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    await screen.findByText('Settings saved');
    expect(fetchMock.callsTo('PUT', '/api/admin/settings')[0]!.body).toEqual({ alarmPingRole: null });
  });

  it('shows a refused role at the field', async () => {
    const error = 'The role to ping cannot be @everyone: choose a role your staff hold';
    fetchMock = mockFetch(routes({ status: 400, body: { error, field: 'alarmPingRole' } }));
    renderApp('/admin/settings');
    const user = userEvent.setup();
    const input = await screen.findByLabelText(label);
    await user.type(input, ROLE);
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect((await screen.findAllByText(error)).length).toBeGreaterThanOrEqual(2);
    expect(input).toHaveAttribute('aria-invalid', 'true');
    // the field takes the focus in an effect, which React runs after the paint that showed the error
    await waitFor(() => expect(input).toHaveFocus());
  });
});
