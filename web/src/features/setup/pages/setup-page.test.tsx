import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { heldRoute, mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

function setup(post: MockRoute, available = true) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/setup-admin': { body: { available } },
    'POST /api/setup-admin': post,
  });
  renderApp('/setup');
}

async function fillAndSubmit({ code = 'ABCD-1234', username = 'owner', password = 'correct horse' } = {}) {
  if (code) await userEvent.type(await screen.findByLabelText('Setup code'), code);
  if (username) await userEvent.type(screen.getByLabelText('Username'), username);
  if (password) await userEvent.type(screen.getByLabelText('Password'), password);
  await userEvent.click(screen.getByRole('button', { name: 'Create Admin Account' }));
}

describe('setup page', () => {
  it('creates the owner with the setup code, shows Creating... then offers Go to Login', async () => {
    const { route, answer } = heldRoute();
    setup(route);
    expect(await screen.findByRole('heading', { level: 1, name: 'Admin Setup' })).toBeInTheDocument();
    await fillAndSubmit();

    expect(await screen.findByRole('button', { name: 'Creating...' })).toBeDisabled();
    expect(fetchMock.callsTo('POST', '/api/setup-admin')[0]?.body).toEqual({
      setupCode: 'ABCD-1234',
      username: 'owner',
      password: 'correct horse',
    });
    answer({ status: 201, body: { success: true, username: 'owner' } });

    const goToLogin = await screen.findByRole('button', { name: 'Go to Login' });
    // the success box carries a check, not the warning triangle
    expect(screen.getByText('Setup complete').closest('[role="note"]')?.querySelector('svg')).toHaveAttribute('data-icon', 'check');
    // said once, in the box: no line under the title repeats it
    expect(screen.queryByText('Admin account created')).not.toBeInTheDocument();
    await userEvent.click(goToLogin);
    expect(screen.getByTestId('location')).toHaveTextContent('/admin/login');
    expect(await screen.findByRole('heading', { name: 'Staff Login' })).toBeInTheDocument();
  });

  it('validates the fields before calling the server', async () => {
    setup({ status: 201, body: { success: true, username: 'owner' } });
    await screen.findByLabelText('Setup code');
    await userEvent.click(screen.getByRole('button', { name: 'Create Admin Account' }));
    expect(screen.getByText('Setup code is required')).toBeInTheDocument();
    expect(screen.getByText('Username is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Password'), 'short');
    await userEvent.click(screen.getByRole('button', { name: 'Create Admin Account' }));
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', '/api/setup-admin')).toHaveLength(0);
  });

  it("shows the server's error, and Try Again returns to the filled-in form", async () => {
    setup({ status: 403, body: { error: 'Invalid setup code', code: 'forbidden' } });
    await fillAndSubmit();
    expect(await screen.findByText('Invalid setup code')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(screen.getByLabelText('Username')).toHaveValue('owner');
    expect(screen.getByRole('button', { name: 'Create Admin Account' })).toBeEnabled();
  });

  it("falls back to 'Setup failed' when the server gives no message", async () => {
    setup({ status: 500, body: '' });
    await fillAndSubmit();
    expect(await screen.findByText('Setup failed')).toBeInTheDocument();
  });

  it("says 'Failed to connect to server' on a network failure", async () => {
    setup({ networkError: true });
    await fillAndSubmit();
    expect(await screen.findByText('Failed to connect to server')).toBeInTheDocument();
  });

  it('says setup is closed, with a way to the login page, once an account exists', async () => {
    setup({ status: 409, body: { error: 'Setup has already been completed' } }, false);
    expect(await screen.findByText(/setup is closed/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Setup code')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to Login' })).toHaveAttribute('href', '/admin/login');
  });

  it('turns to the closed state after a 409 and Try Again', async () => {
    let available = true;
    fetchMock = mockFetch({
      'GET /api/config': { body: { dataRetentionDays: 30 } },
      'GET /api/setup-admin': () => ({ body: { available } }),
      'POST /api/setup-admin': () => {
        available = false;
        return { status: 409, body: { error: 'Setup has already been completed', code: 'conflict' } };
      },
    });
    renderApp('/setup');
    await fillAndSubmit();
    expect(await screen.findByText('Setup has already been completed')).toBeInTheDocument();
    await waitFor(() => expect(fetchMock.callsTo('GET', '/api/setup-admin')).toHaveLength(2));
    await userEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByText(/setup is closed/)).toBeInTheDocument();
  });

  it('shows no default credentials', async () => {
    setup({ status: 201, body: { success: true, username: 'owner' } });
    await screen.findByLabelText('Setup code');
    expect(document.body.textContent).not.toMatch(/default/i);
    expect(screen.getByLabelText('Username')).toHaveValue('');
    expect(screen.getByLabelText('Password')).toHaveValue('');
  });
});
