import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import { listPage, staffSession, usersUrl } from '@/test/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

function setup(login: MockRoute) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'POST /api/staff/login': login,
    'GET /api/admin/session': { body: staffSession },
    [`GET ${usersUrl()}`]: { body: listPage([]) },
  });
  renderApp('/admin/login');
}

async function signIn(username = 'mod', password = 'hunter22!') {
  if (username) await userEvent.type(await screen.findByLabelText('Username'), username);
  if (password) await userEvent.type(screen.getByLabelText('Password'), password);
  await userEvent.click(screen.getByRole('button', { name: 'Sign In' }));
}

describe('staff login page', () => {
  it('requires both fields and sends nothing without them', async () => {
    setup({ body: { success: true } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Staff Login' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(screen.getByText('Username is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    expect(screen.getByLabelText('Username')).toHaveAttribute('aria-invalid', 'true');
    expect(fetchMock.callsTo('POST', '/api/staff/login')).toHaveLength(0);
  });

  it('signs in and goes to the dashboard', async () => {
    setup({ body: { success: true } });
    await signIn();
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/admin$/));
    expect(fetchMock.callsTo('POST', '/api/staff/login')[0]?.body).toEqual({ username: 'mod', password: 'hunter22!' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Admin Dashboard' })).toBeInTheDocument();
  });

  it("says 'Invalid credentials' when the server answers success: false", async () => {
    setup({ status: 401, body: { success: false, error: 'Invalid credentials', code: 'invalid_credentials' } });
    await signIn();
    expect(await screen.findByText('Invalid credentials')).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent('/admin/login');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeEnabled();
  });

  it("shows the server's message otherwise (throttling)", async () => {
    setup({ status: 429, body: { error: 'Too many login attempts. Please try again later.', code: 'rate_limited' } });
    await signIn();
    expect(await screen.findByText('Too many login attempts. Please try again later.')).toBeInTheDocument();
  });

  it.each([
    ['a server error without a message', { status: 500, body: '' }],
    ['a network failure', { networkError: true }],
  ])("shows 'Login failed' on %s", async (_label, reply) => {
    setup(reply);
    await signIn();
    expect(await screen.findByText('Login failed')).toBeInTheDocument();
  });
});
