import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { heldRoute, mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import { buildUser, listPage, staffSession, usersUrl } from '@/test/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

const ID = '300000000000000001';

function setup(routes: Record<string, MockRoute> = {}, path = '/admin/manual-entry') {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: staffSession },
    [`GET ${usersUrl()}`]: { body: listPage([]) },
    'POST /api/admin/manual-entry': { status: 201, body: { success: true } },
    ...routes,
  });
  renderApp(path);
}

const idInput = () => screen.getByRole('textbox', { name: 'Discord ID' });
const fetchButton = () => screen.getByRole('button', { name: 'Fetch Discord user' });

async function pick(label: string, option: string) {
  await userEvent.click(screen.getByRole('combobox', { name: label }));
  await userEvent.click(await screen.findByRole('option', { name: option }));
}

describe('manual entry page', () => {
  it('shows the form with its selects and the fetch hint', async () => {
    setup();
    expect(await screen.findByRole('heading', { level: 1, name: 'Manual Entry Creation' })).toBeInTheDocument();
    expect(screen.getByText('Create a verification record manually')).toBeInTheDocument();
    expect(screen.getByText('Enter a Discord ID and click search to auto-fetch user data')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Username' })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Avatar URL (optional)' })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Verification Status' })).toHaveTextContent('Verified');
    expect(screen.getByRole('combobox', { name: 'Rules Confirmed' })).toHaveTextContent('Yes');
    expect(screen.getByRole('combobox', { name: 'Manual Alt Status (optional)' })).toHaveTextContent('No Override');
    expect(screen.queryByRole('region', { name: 'Preview' })).not.toBeInTheDocument();
  });

  it('keeps the fetch button disabled while the ID is blank and while fetching; Enter on a blank ID asks for one', async () => {
    const { route, answer } = heldRoute();
    setup({ [`GET /api/discord/user/${ID}`]: route });
    await screen.findByRole('heading', { name: 'Manual Entry Creation' });
    expect(fetchButton()).toBeDisabled();
    await userEvent.type(idInput(), '   ');
    expect(fetchButton()).toBeDisabled();
    await userEvent.type(idInput(), '{Enter}');
    expect(screen.getByText('Please enter a Discord ID')).toBeInTheDocument();
    expect(fetchMock.calls.filter((call) => call.path.startsWith('/api/discord/user/'))).toHaveLength(0);

    await userEvent.clear(idInput());
    await userEvent.type(idInput(), ID);
    expect(fetchButton()).toBeEnabled();
    await userEvent.click(fetchButton());
    await waitFor(() => expect(fetchButton()).toBeDisabled());
    answer({ body: { username: 'zed', avatarUrl: null } });
    await waitFor(() => expect(fetchButton()).toBeEnabled());
  });

  it('fills the form and the preview from Discord', async () => {
    setup({ [`GET /api/discord/user/${ID}`]: { body: { username: 'zed', avatarUrl: 'https://cdn.discordapp.com/avatars/3/a.png' } } });
    await userEvent.type(await screen.findByRole('textbox', { name: 'Discord ID' }), ID);
    await userEvent.click(fetchButton());
    expect(await screen.findByText('Found user: zed')).toBeInTheDocument();
    expect(screen.getByText('Discord user fetched')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Username' })).toHaveValue('zed');
    expect(screen.getByRole('textbox', { name: 'Avatar URL (optional)' })).toHaveValue('https://cdn.discordapp.com/avatars/3/a.png');
    const preview = screen.getByRole('region', { name: 'Preview' });
    expect(within(preview).getByRole('img', { name: 'zed' })).toHaveAttribute('src', 'https://cdn.discordapp.com/avatars/3/a.png');
    expect(within(preview).getByText(ID)).toBeInTheDocument();
  });

  it('shows the preview with the initials once a username is typed', async () => {
    setup();
    await userEvent.type(await screen.findByRole('textbox', { name: 'Username' }), 'zed');
    expect(within(screen.getByRole('region', { name: 'Preview' })).getByText('ZE')).toBeInTheDocument();
  });

  it.each([
    [{ status: 404, body: { error: 'Discord user not found', code: 'not_found' } }, 'Discord user not found'],
    [{ status: 502, body: '' }, 'Failed to fetch Discord user data'],
  ])('toasts a failed fetch', async (reply, message) => {
    setup({ [`GET /api/discord/user/${ID}`]: reply });
    await userEvent.type(await screen.findByRole('textbox', { name: 'Discord ID' }), ID);
    await userEvent.click(fetchButton());
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(screen.getByText(message).closest('[data-variant]')).toHaveAttribute('data-variant', 'destructive');
  });

  it('requires the Discord ID and the username', async () => {
    setup();
    await userEvent.click(await screen.findByRole('button', { name: 'Create Entry' }));
    expect(screen.getByText('Discord ID is required')).toBeInTheDocument();
    expect(screen.getByText('Username is required')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', '/api/admin/manual-entry')).toHaveLength(0);
  });

  it('clears each required message once its field is filled, and only that one', async () => {
    setup();
    await userEvent.click(await screen.findByRole('button', { name: 'Create Entry' }));
    await userEvent.type(idInput(), ID);
    expect(screen.queryByText('Discord ID is required')).not.toBeInTheDocument();
    expect(idInput()).not.toHaveAttribute('aria-invalid');
    expect(screen.getByText('Username is required')).toBeInTheDocument();
    await userEvent.type(screen.getByRole('textbox', { name: 'Username' }), 'typed');
    expect(screen.queryByText('Username is required')).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Username' })).not.toHaveAttribute('aria-invalid');
  });

  it('keeps a message while the field holds only spaces, and shows it again on the next empty submit', async () => {
    setup();
    await userEvent.click(await screen.findByRole('button', { name: 'Create Entry' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Username' }), '   ');
    expect(screen.getByText('Username is required')).toBeInTheDocument();
    await userEvent.type(idInput(), ID);
    await userEvent.clear(idInput());
    expect(screen.queryByText('Discord ID is required')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Create Entry' }));
    expect(screen.getByText('Discord ID is required')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', '/api/admin/manual-entry')).toHaveLength(0);
  });

  it('creates the entry with the spec payload, toasts, and resets the form', async () => {
    const { route, answer } = heldRoute();
    setup({ 'POST /api/admin/manual-entry': route });
    await userEvent.type(await screen.findByRole('textbox', { name: 'Discord ID' }), ID);
    await userEvent.type(screen.getByRole('textbox', { name: 'Username' }), 'zed');
    await pick('Verification Status', 'Limited Access');
    await pick('Rules Confirmed', 'No');
    await pick('Manual Alt Status (optional)', 'Suspected Alt');
    await userEvent.click(screen.getByRole('button', { name: 'Create Entry' }));

    expect(await screen.findByRole('button', { name: 'Creating...' })).toBeDisabled();
    expect(fetchMock.callsTo('POST', '/api/admin/manual-entry')[0]?.body).toEqual({
      discordId: ID,
      username: 'zed',
      avatarUrl: null,
      status: 'limited_access',
      rulesConfirmed: 'false',
      manualAltStatus: 'suspected_alt',
    });
    answer({ status: 201, body: { success: true } });

    expect(await screen.findByText('Manual verification entry has been created successfully.')).toBeInTheDocument();
    expect(screen.getByText('Entry created')).toBeInTheDocument();
    expect(idInput()).toHaveValue('');
    expect(screen.getByRole('textbox', { name: 'Username' })).toHaveValue('');
    expect(screen.getByRole('combobox', { name: 'Verification Status' })).toHaveTextContent('Verified');
    expect(screen.getByRole('combobox', { name: 'Manual Alt Status (optional)' })).toHaveTextContent('No Override');
  });

  it('sends the avatar URL, rules confirmed and no override as the spec says', async () => {
    setup();
    await userEvent.type(await screen.findByRole('textbox', { name: 'Discord ID' }), ID);
    await userEvent.type(screen.getByRole('textbox', { name: 'Username' }), 'zed');
    await userEvent.type(screen.getByRole('textbox', { name: 'Avatar URL (optional)' }), 'https://cdn.example/z.png');
    await userEvent.click(screen.getByRole('button', { name: 'Create Entry' }));
    await screen.findByText('Entry created');
    expect(fetchMock.callsTo('POST', '/api/admin/manual-entry')[0]?.body).toEqual({
      discordId: ID,
      username: 'zed',
      avatarUrl: 'https://cdn.example/z.png',
      status: 'verified',
      rulesConfirmed: 'true',
      manualAltStatus: null,
    });
  });

  it.each([
    [
      { status: 409, body: { error: 'A verification record for this Discord ID already exists', code: 'conflict' } },
      'A verification record for this Discord ID already exists',
    ],
    [{ status: 500, body: '' }, 'Failed to create manual entry.'],
  ])('toasts a failed creation and keeps the form', async (reply, message) => {
    setup({ 'POST /api/admin/manual-entry': reply });
    await userEvent.type(await screen.findByRole('textbox', { name: 'Discord ID' }), ID);
    await userEvent.type(screen.getByRole('textbox', { name: 'Username' }), 'zed');
    await userEvent.click(screen.getByRole('button', { name: 'Create Entry' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(idInput()).toHaveValue(ID);
  });

  it('refreshes the dashboard list after an entry is created', async () => {
    let created = false;
    setup(
      {
        [`GET ${usersUrl()}`]: () => ({ body: listPage(created ? [buildUser({ username: 'zed', discordId: ID })] : []) }),
        'POST /api/admin/manual-entry': () => {
          created = true;
          return { status: 201, body: { success: true } };
        },
      },
      '/admin',
    );
    expect(await screen.findByText('No users found')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Manual Entry' }));
    await userEvent.type(await screen.findByRole('textbox', { name: 'Discord ID' }), ID);
    await userEvent.type(screen.getByRole('textbox', { name: 'Username' }), 'zed');
    await userEvent.click(screen.getByRole('button', { name: 'Create Entry' }));
    await screen.findByText('Entry created');
    await userEvent.click(screen.getByRole('link', { name: 'Back to Dashboard' }));
    expect(await screen.findByRole('link', { name: /^zed/ })).toBeInTheDocument();
  });

  it('goes back to the dashboard on Cancel', async () => {
    setup();
    await userEvent.click(await screen.findByRole('link', { name: 'Cancel' }));
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/admin$/);
  });
});
