import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { memberBadges } from '@shared/member-badges';
import { heldRoute, mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import { buildUser, listPage, staffSession, superAdminSession, usersUrl } from '@/test/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

const alice = buildUser({ id: 1, discordId: '100000000000000001', username: 'alice', altsFound: 0 });
const bob = buildUser({
  id: 2,
  discordId: '100000000000000002',
  username: 'bob',
  altsFound: 1,
  usedVpn: true,
  vpnAttempts: 3,
  verificationCount: 2,
  avatarUrl: 'https://cdn.example/bob.png',
});
const carol = buildUser({ id: 3, discordId: '100000000000000003', username: 'carol', isLinkedAsAlt: true, usedVpn: true, vpnAttempts: 1 });
const dave = buildUser({ id: 4, discordId: '100000000000000004', username: 'dave', status: 'limited_access', rulesConfirmed: false });
const erin = buildUser({ id: 5, discordId: '100000000000000005', username: 'erin', altsFound: 4 });
const frank = buildUser({ id: 6, discordId: '100000000000000006', username: 'frank', manualAltStatus: 'suspected_alt' });
const gina = buildUser({ id: 7, discordId: '100000000000000007', username: 'gina', rulesConfirmed: false });

function setup(routes: Record<string, MockRoute> = {}, session: MockRoute = { body: staffSession }) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': session,
    [`GET ${usersUrl()}`]: { body: listPage([alice, bob, carol]) },
    ...routes,
  });
  renderApp('/admin');
}

function card(username: string): HTMLElement {
  return screen.getByRole('link', { name: new RegExp(`^${username}`) }).closest('li') as HTMLElement;
}

function badgeLabels(username: string): string[] {
  const list = within(card(username)).getByRole('list', { name: 'Status' });
  return within(list)
    .getAllByRole('listitem')
    .map((item) => item.textContent ?? '');
}

describe('admin dashboard', () => {
  it('shows the heading, the search, the filter and the users with their count', async () => {
    const { route, answer } = heldRoute();
    setup({ [`GET ${usersUrl()}`]: route });
    expect(await screen.findByRole('heading', { level: 1, name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(screen.getByText('Manage verified users and alt accounts')).toBeInTheDocument();
    expect(screen.getByPlaceholderText('Search by username or Discord ID...')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Filter users' })).toHaveTextContent('All Users');
    expect(await screen.findByText('Loading...')).toBeInTheDocument();
    answer({ body: listPage([alice, bob, carol]) });
    expect(await screen.findByRole('heading', { name: 'All Users (3)' })).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();

    const link = screen.getByRole('link', { name: /^alice/ });
    expect(link).toHaveAttribute('href', '/admin/user/100000000000000001');
    expect(within(card('alice')).getByText('100000000000000001')).toBeInTheDocument();
    expect(within(card('alice')).getByText('AL')).toBeInTheDocument(); // 2-letter fallback without an avatar
    expect(within(card('bob')).getByRole('img', { name: 'bob' })).toHaveAttribute('src', 'https://cdn.example/bob.png');
    expect(card('alice').querySelector('time')).toHaveAttribute('dateTime', alice.timestamp);
  });

  it('renders the badges from the shared module, with their colours', async () => {
    const users = [alice, bob, carol, dave, erin, frank, gina];
    setup({ [`GET ${usersUrl()}`]: { body: listPage(users) } });
    await screen.findByRole('heading', { name: 'All Users (7)' });
    for (const user of users) {
      expect(badgeLabels(user.username)).toEqual(memberBadges(user).map((badge) => badge.label));
    }
    const colour = (username: string, label: string) => within(card(username)).getByText(label).getAttribute('data-color');
    expect(colour('alice', 'Verified')).toBe('green');
    expect(colour('bob', '1 Alt')).toBe('amber');
    expect(colour('dave', 'Limited Access')).toBe('blue');
    expect(colour('erin', '4 Alts')).toBe('red');
    expect(colour('carol', 'Certain Alt')).toBe('red');
    expect(colour('frank', 'Suspected Alt')).toBe('amber');
    expect(badgeLabels('bob')).toEqual(['Verified', '1 Alt', 'VPN (3)', '2x']);
    expect(badgeLabels('carol')).toEqual(['Certain Alt', 'VPN']);
    expect(badgeLabels('dave')).toEqual(['Limited Access']);
    expect(badgeLabels('gina')).toEqual(['Pending']);
  });

  it("says 'No users found' for an empty result", async () => {
    setup({ [`GET ${usersUrl()}`]: { body: listPage([]) } });
    expect(await screen.findByText('No users found')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'All Users (0)' })).toBeInTheDocument();
  });

  it('searches on the server once typing pauses', async () => {
    setup({ [`GET ${usersUrl({ search: 'bob' })}`]: { body: listPage([bob]) } });
    await screen.findByRole('heading', { name: 'All Users (3)' });
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search users' }), 'bob');
    expect(await screen.findByRole('heading', { name: 'All Users (1)' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /^alice/ })).not.toBeInTheDocument();
    const searches = fetchMock.calls.filter((call) => call.path.includes('search='));
    expect(searches.map((call) => call.path)).toEqual([usersUrl({ search: 'bob' })]);
  });

  it('filters on the server', async () => {
    setup({ [`GET ${usersUrl({ filter: 'certain_alts' })}`]: { body: listPage([carol]) } });
    await screen.findByRole('heading', { name: 'All Users (3)' });
    await userEvent.click(screen.getByRole('combobox', { name: 'Filter users' }));
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual([
      'All Users',
      'Verified Only',
      'Unverified Only',
      'Certain Alts Only',
    ]);
    await userEvent.click(screen.getByRole('option', { name: 'Certain Alts Only' }));
    expect(await screen.findByRole('heading', { name: 'Certain Alts (1)' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /^carol/ })).toBeInTheDocument();
  });

  it('loads the next page with the cursor', async () => {
    setup({
      [`GET ${usersUrl()}`]: { body: listPage([alice, bob], { total: 3, nextCursor: 'page-2' }) },
      [`GET ${usersUrl({ cursor: 'page-2' })}`]: { body: listPage([carol], { total: 3 }) },
    });
    await screen.findByRole('heading', { name: 'All Users (3)' });
    expect(screen.queryByRole('link', { name: /^carol/ })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByRole('link', { name: /^carol/ })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
  });

  it('marks an estimated total as approximate', async () => {
    setup({ [`GET ${usersUrl()}`]: { body: listPage([alice], { total: 1234567, totalIsExact: false, nextCursor: 'x' }) } });
    expect(await screen.findByRole('heading', { name: 'All Users (~1,234,567)' })).toBeInTheDocument();
  });

  it('shows a capped total as a lower bound', async () => {
    setup({
      [`GET ${usersUrl()}`]: { body: listPage([alice], { total: 1000, totalIsExact: false, totalIsCapped: true, nextCursor: 'x' }) },
    });
    expect(await screen.findByRole('heading', { name: 'All Users (1,000+)' })).toBeInTheDocument();
  });

  it('offers a retry when the list cannot be loaded', async () => {
    let up = false;
    setup({ [`GET ${usersUrl()}`]: () => (up ? { body: listPage([alice]) } : { status: 500, body: '' }) });
    expect(await screen.findByText('Could not load users')).toBeInTheDocument();
    up = true;
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('heading', { name: 'All Users (1)' })).toBeInTheDocument();
  });

  it('sends a 401 from the user list to /admin/login', async () => {
    setup({ [`GET ${usersUrl()}`]: { status: 401, body: { error: 'Authentication required', code: 'unauthorized' } } });
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/admin/login'));
    expect(await screen.findByRole('heading', { name: 'Staff Login' })).toBeInTheDocument();
  });

  it('sends a 401 from the session to /admin/login', async () => {
    setup({}, { status: 401, body: { error: 'Authentication required', code: 'unauthorized' } });
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/admin/login'));
  });

  it('shows Staff Management and Audit Log only to super admins', async () => {
    setup();
    await screen.findByText('Signed in as mod');
    expect(screen.getByRole('link', { name: 'Manual Entry' })).toHaveAttribute('href', '/admin/manual-entry');
    expect(screen.getByRole('link', { name: 'Create Staff' })).toHaveAttribute('href', '/admin/create-staff');
    expect(screen.getByRole('link', { name: 'Change Password' })).toHaveAttribute('href', '/admin/account');
    expect(screen.queryByRole('link', { name: 'Staff Management' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Audit Log' })).not.toBeInTheDocument();
  });

  it('shows Staff Management and Audit Log to a super admin', async () => {
    setup({}, { body: superAdminSession });
    expect(await screen.findByRole('link', { name: 'Staff Management' })).toHaveAttribute('href', '/admin/staff');
    expect(screen.getByRole('link', { name: 'Audit Log' })).toHaveAttribute('href', '/admin/audit');
    // the owner changes their own password from the same header
    expect(screen.getByRole('link', { name: 'Change Password' })).toHaveAttribute('href', '/admin/account');
  });

  it('logs out and goes to the login page', async () => {
    setup({ 'POST /api/staff/logout': { body: { success: true } } });
    await screen.findByRole('heading', { name: 'All Users (3)' });
    await userEvent.click(screen.getByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/admin/login'));
    expect(fetchMock.callsTo('POST', '/api/staff/logout')).toHaveLength(1);
  });

  describe('delete', () => {
    function deleteButton(username: string) {
      return within(card(username)).getByRole('button', { name: `Delete verification record of ${username}` });
    }

    it('is reachable by keyboard and shown on focus as well as on hover', async () => {
      setup();
      await screen.findByRole('heading', { name: 'All Users (3)' });
      const button = deleteButton('alice');
      expect(button.className).toContain('group-hover:opacity-100');
      expect(button.className).toContain('focus-visible:opacity-100');
      act(() => screen.getByRole('link', { name: /^alice/ }).focus());
      await userEvent.tab();
      expect(button).toHaveFocus();
    });

    it("asks in the 'Delete Verification Record' dialog, deletes, toasts and refreshes the list", async () => {
      let listCalls = 0;
      setup({
        [`GET ${usersUrl()}`]: () => ({ body: listPage(++listCalls === 1 ? [alice, bob] : [bob]) }),
        'POST /api/privacy/delete': { body: { success: true } },
      });
      await screen.findByRole('heading', { name: 'All Users (2)' });
      await userEvent.click(deleteButton('alice'));
      const dialog = screen.getByRole('alertdialog', { name: 'Delete Verification Record' });
      await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));

      expect(await screen.findByText('The verification record has been removed.')).toBeInTheDocument();
      expect(screen.getByText('User deleted')).toBeInTheDocument();
      expect(fetchMock.callsTo('POST', '/api/privacy/delete')[0]?.body).toEqual({ discordId: alice.discordId });
      expect(await screen.findByRole('heading', { name: 'All Users (1)' })).toBeInTheDocument();
      expect(screen.queryByRole('link', { name: /^alice/ })).not.toBeInTheDocument();
      expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    });

    it('sends nothing when cancelled', async () => {
      setup({ 'POST /api/privacy/delete': { body: { success: true } } });
      await screen.findByRole('heading', { name: 'All Users (3)' });
      await userEvent.click(deleteButton('bob'));
      await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
      expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
      expect(fetchMock.callsTo('POST', '/api/privacy/delete')).toHaveLength(0);
    });

    it("shows the 'Error' toast when the delete fails", async () => {
      setup({ 'POST /api/privacy/delete': { status: 500, body: { error: 'boom' } } });
      await screen.findByRole('heading', { name: 'All Users (3)' });
      await userEvent.click(deleteButton('bob'));
      await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
      expect(await screen.findByText('Failed to delete user record.')).toBeInTheDocument();
      expect(screen.getByText('Error').closest('[data-variant]')).toHaveAttribute('data-variant', 'destructive');
      // the dialog stays open for another try
      await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Cancel' }));
      expect(screen.getByRole('link', { name: /^bob/ })).toBeInTheDocument();
    });
  });
});
