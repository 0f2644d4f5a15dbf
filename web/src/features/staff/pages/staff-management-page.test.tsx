import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { heldRoute, mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { StaffAccount } from '../api/staff';
import { buildStaff, staffSession, superAdminSession } from '@/test/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => {
  fetchMock.restore();
  jest.restoreAllMocks();
});

const owner = buildStaff({ id: 1, username: 'owner', isSuperAdmin: true, isOwner: true, discordId: '900000000000000001' });
const helper = buildStaff({ id: 3, username: 'helper' });
const senior = buildStaff({ id: 4, username: 'senior', isSuperAdmin: true });

function setup(routes: Record<string, MockRoute> = {}, session = superAdminSession) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: session },
    'GET /api/admin/staff': { body: [owner, helper, senior] },
    ...routes,
  });
  renderApp('/admin/staff');
}

const row = (username: string) => screen.getByRole('listitem', { name: username });

describe('staff management page', () => {
  it("shows 'Loading staff accounts...', then each account with its badge, ID and controls", async () => {
    const { route, answer } = heldRoute();
    setup({ 'GET /api/admin/staff': route });
    expect(await screen.findByRole('heading', { level: 1, name: 'Staff Management' })).toBeInTheDocument();
    expect(await screen.findByText('Loading staff accounts...')).toBeInTheDocument();
    answer({ body: [owner, helper, senior] });

    expect(await screen.findByRole('heading', { name: 'Existing Staff Accounts' })).toBeInTheDocument();
    await screen.findByRole('listitem', { name: 'helper' });
    expect(within(row('senior')).getByText('SUPER ADMIN')).toBeInTheDocument();
    expect(within(row('helper')).queryByText('SUPER ADMIN')).not.toBeInTheDocument();
    expect(within(row('helper')).getByText(/Staff ID/)).toHaveTextContent('Staff ID 3');
    expect(within(row('helper')).getByRole('button', { name: 'Make Super Admin' })).toBeInTheDocument();
    expect(within(row('senior')).getByRole('button', { name: 'Remove Super Admin' })).toBeInTheDocument();
    expect(within(row('helper')).getByRole('button', { name: 'Delete' })).toBeInTheDocument();
    expect(within(row('helper')).getByLabelText('Change Password for helper')).toBeInTheDocument();
  });

  it('hides every control of the protected owner account', async () => {
    setup();
    await screen.findByRole('listitem', { name: 'owner' });
    const ownerRow = row('owner');
    expect(within(ownerRow).getByText('SUPER ADMIN')).toBeInTheDocument();
    expect(within(ownerRow).queryByRole('button')).not.toBeInTheDocument();
    expect(within(ownerRow).queryByRole('textbox')).not.toBeInTheDocument();
    expect(within(ownerRow).queryByLabelText(/Change Password/)).not.toBeInTheDocument();
  });

  it("says 'No staff accounts found.' for an empty list", async () => {
    setup({ 'GET /api/admin/staff': { body: [] } });
    expect(await screen.findByText('No staff accounts found.')).toBeInTheDocument();
  });

  it('shows regular staff no controls and asks the server nothing', async () => {
    setup({}, staffSession);
    expect(await screen.findByText('Only super admins can manage staff accounts.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create Staff Account' })).not.toBeInTheDocument();
    expect(fetchMock.callsTo('GET', '/api/admin/staff')).toHaveLength(0);
  });

  it('says so when the session cannot be checked, and retries', async () => {
    let up = false;
    setup({ 'GET /api/admin/session': () => (up ? { body: superAdminSession } : { status: 500, body: '' }) });
    expect(await screen.findByText('Could not check your session')).toBeInTheDocument();
    up = true;
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('listitem', { name: 'helper' })).toBeInTheDocument();
  });

  it('sends a 401 to /admin/login', async () => {
    setup({ 'GET /api/admin/session': { status: 401, body: { error: 'Authentication required' } } });
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/admin/login'));
  });

  describe('create', () => {
    it('requires both fields', async () => {
      setup({ 'POST /api/admin/staff': { status: 201, body: { success: true } } });
      await userEvent.click(await screen.findByRole('button', { name: 'Create Staff Account' }));
      expect(screen.getByText('Username and password are required.')).toBeInTheDocument();
      expect(fetchMock.callsTo('POST', '/api/admin/staff')).toHaveLength(0);
    });

    it('creates, toasts and refreshes the list', async () => {
      let staff: StaffAccount[] = [owner, helper];
      setup({
        'GET /api/admin/staff': () => ({ body: staff }),
        'POST /api/admin/staff': () => {
          staff = [...staff, buildStaff({ id: 9, username: 'rookie' })];
          return { status: 201, body: { success: true } };
        },
      });
      await screen.findByRole('listitem', { name: 'helper' });
      const card = screen.getByRole('heading', { name: 'Create Staff Account' }).closest('div')?.parentElement as HTMLElement;
      await userEvent.type(within(card).getByLabelText('Username'), 'rookie');
      await userEvent.type(within(card).getByLabelText('Password'), 'pw');
      await userEvent.click(screen.getByRole('button', { name: 'Create Staff Account' }));
      expect(await screen.findByText('Staff account created')).toBeInTheDocument();
      expect(fetchMock.callsTo('POST', '/api/admin/staff')[0]?.body).toEqual({ username: 'rookie', password: 'pw' });
      expect(await screen.findByRole('listitem', { name: 'rookie' })).toBeInTheDocument();
      expect(within(card).getByLabelText('Username')).toHaveValue('');
    });

    it("shows the server's message when creation fails", async () => {
      setup({ 'POST /api/admin/staff': { status: 400, body: { error: 'Password must be at least 8 characters', field: 'password' } } });
      await screen.findByRole('listitem', { name: 'helper' });
      const card = screen.getByRole('heading', { name: 'Create Staff Account' }).closest('div')?.parentElement as HTMLElement;
      await userEvent.type(within(card).getByLabelText('Username'), 'rookie');
      await userEvent.type(within(card).getByLabelText('Password'), 'pw');
      await userEvent.click(screen.getByRole('button', { name: 'Create Staff Account' }));
      expect(await screen.findByText('Password must be at least 8 characters')).toBeInTheDocument();
    });
  });

  describe('super admin toggle', () => {
    it.each([
      ['helper', 'Make Super Admin', 'Are you sure you want to make helper a super admin?', 3, true],
      ['senior', 'Remove Super Admin', 'Are you sure you want to remove super admin privileges from senior?', 4, false],
    ])('asks, naming %s, then sends the opposite value', async (username, button, question, id, value) => {
      const confirm = jest.spyOn(window, 'confirm').mockReturnValue(true);
      setup({ [`PATCH /api/admin/staff/${id}/super-admin`]: { body: { success: true } } });
      await screen.findByRole('listitem', { name: username });
      await userEvent.click(within(row(username)).getByRole('button', { name: button }));
      expect(confirm).toHaveBeenCalledWith(question);
      expect(await screen.findByText('Super admin status updated')).toBeInTheDocument();
      expect(fetchMock.callsTo('PATCH', `/api/admin/staff/${id}/super-admin`)[0]?.body).toEqual({ isSuperAdmin: value });
    });

    it('sends nothing when declined', async () => {
      jest.spyOn(window, 'confirm').mockReturnValue(false);
      setup();
      await screen.findByRole('listitem', { name: 'helper' });
      await userEvent.click(within(row('helper')).getByRole('button', { name: 'Make Super Admin' }));
      expect(fetchMock.calls.filter((call) => call.method === 'PATCH')).toHaveLength(0);
    });

    it("toasts 'Failed to update super admin status.'", async () => {
      jest.spyOn(window, 'confirm').mockReturnValue(true);
      setup({ 'PATCH /api/admin/staff/3/super-admin': { status: 500, body: '' } });
      await screen.findByRole('listitem', { name: 'helper' });
      await userEvent.click(within(row('helper')).getByRole('button', { name: 'Make Super Admin' }));
      expect(await screen.findByText('Failed to update super admin status.')).toBeInTheDocument();
    });
  });

  describe('delete', () => {
    it('asks with the spec text, deletes and refreshes', async () => {
      const confirm = jest.spyOn(window, 'confirm').mockReturnValue(true);
      let staff: StaffAccount[] = [owner, helper, senior];
      setup({
        'GET /api/admin/staff': () => ({ body: staff }),
        'DELETE /api/admin/staff/3': () => {
          staff = [owner, senior];
          return { body: { success: true } };
        },
      });
      await screen.findByRole('listitem', { name: 'helper' });
      await userEvent.click(within(row('helper')).getByRole('button', { name: 'Delete' }));
      expect(confirm).toHaveBeenCalledWith('Are you sure you want to delete staff account helper? This action cannot be undone.');
      expect(await screen.findByText('Staff account deleted')).toBeInTheDocument();
      await waitFor(() => expect(screen.queryByRole('listitem', { name: 'helper' })).not.toBeInTheDocument());
    });

    it.each([
      [{ status: 403, body: { error: 'You cannot delete your own account' } }, 'You cannot delete your own account'],
      [{ status: 500, body: '' }, 'Failed to delete staff account.'],
    ])('toasts a failure', async (reply, message) => {
      jest.spyOn(window, 'confirm').mockReturnValue(true);
      setup({ 'DELETE /api/admin/staff/3': reply });
      await screen.findByRole('listitem', { name: 'helper' });
      await userEvent.click(within(row('helper')).getByRole('button', { name: 'Delete' }));
      expect(await screen.findByText(message)).toBeInTheDocument();
    });
  });

  describe('change password', () => {
    it("refuses an empty password with 'Password cannot be empty.'", async () => {
      setup();
      await screen.findByRole('listitem', { name: 'helper' });
      await userEvent.click(within(row('helper')).getByRole('button', { name: 'Update' }));
      expect(within(row('helper')).getByText('Password cannot be empty.')).toBeInTheDocument();
      expect(fetchMock.calls.filter((call) => call.method === 'PATCH')).toHaveLength(0);
    });

    it('updates the password and clears the field', async () => {
      setup({ 'PATCH /api/admin/staff/3/password': { body: { success: true } } });
      await screen.findByRole('listitem', { name: 'helper' });
      const input = within(row('helper')).getByLabelText('Change Password for helper');
      await userEvent.type(input, 'new-secret-1');
      await userEvent.click(within(row('helper')).getByRole('button', { name: 'Update' }));
      expect(await screen.findByText('Password updated')).toBeInTheDocument();
      expect(fetchMock.callsTo('PATCH', '/api/admin/staff/3/password')[0]?.body).toEqual({ newPassword: 'new-secret-1' });
      expect(input).toHaveValue('');
    });

    it.each([
      [
        { status: 400, body: { error: 'Password must be at least 8 characters', field: 'newPassword' } },
        'Password must be at least 8 characters',
      ],
      [{ status: 500, body: '' }, 'Failed to update password.'],
    ])('toasts a failure', async (reply, message) => {
      setup({ 'PATCH /api/admin/staff/3/password': reply });
      await screen.findByRole('listitem', { name: 'helper' });
      await userEvent.type(within(row('helper')).getByLabelText('Change Password for helper'), 'x');
      await userEvent.click(within(row('helper')).getByRole('button', { name: 'Update' }));
      expect(await screen.findByText(message)).toBeInTheDocument();
    });
  });
});
