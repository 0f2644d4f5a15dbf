import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import { flush, listPage, superAdminSession, usersUrl } from '@/test/admin-fixtures';
import { changePasswordProblem, FILL_ALL, PASSWORDS_DIFFER } from './change-password-page';

let fetchMock: FetchMock | undefined;
afterEach(async () => {
  await flush();
  fetchMock?.restore();
  fetchMock = undefined;
});

const PATH = '/api/admin/me/password';

function setup(change: MockRoute = { body: { success: true } }) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: superAdminSession },
    [`GET ${usersUrl()}`]: { body: listPage([]) },
    [`POST ${PATH}`]: change,
  });
  renderApp('/admin/account');
}

async function fill(current: string, next: string, confirm = next) {
  if (current) await userEvent.type(await screen.findByLabelText('Current password'), current);
  if (next) await userEvent.type(screen.getByLabelText('New password'), next);
  if (confirm) await userEvent.type(screen.getByLabelText('Confirm new password'), confirm);
  await userEvent.click(screen.getByRole('button', { name: 'Change Password' }));
}

describe('changePasswordProblem', () => {
  it.each([
    ['all empty', { current: '', next: '', confirm: '' }, FILL_ALL],
    ['no current password', { current: '', next: 'new-password', confirm: 'new-password' }, FILL_ALL],
    ['no confirmation', { current: 'old-password', next: 'new-password', confirm: '' }, FILL_ALL],
    ['a short new password', { current: 'old-password', next: 'short', confirm: 'short' }, 'Password must be at least 8 characters'],
    ['a confirmation that differs', { current: 'old-password', next: 'new-password', confirm: 'new-passwort' }, PASSWORDS_DIFFER],
    ['a good form', { current: 'old-password', next: 'new-password', confirm: 'new-password' }, null],
  ])('%s', (_case, form, problem) => {
    expect(changePasswordProblem(form)).toBe(problem);
  });
});

describe('change password page', () => {
  it('changes the password with the current one, says so, and clears the fields', async () => {
    setup();
    expect(await screen.findByRole('heading', { level: 1, name: 'Change Password' })).toBeInTheDocument();
    expect(await screen.findByText('Signed in as owner')).toBeInTheDocument();
    await fill('owner-password', 'brand-new-pass');
    await waitFor(() => expect(fetchMock!.callsTo('POST', PATH)).toHaveLength(1));
    expect(fetchMock!.callsTo('POST', PATH)[0]?.body).toEqual({ currentPassword: 'owner-password', newPassword: 'brand-new-pass' });
    expect(await screen.findByText('Password changed')).toBeInTheDocument();
    expect(screen.getByText('Password changed').closest('[role="note"]')?.querySelector('svg')).toHaveAttribute('data-icon', 'check');
    expect(screen.getByLabelText('Current password')).toHaveValue('');
    expect(screen.getByLabelText('New password')).toHaveValue('');
  });

  it.each([
    ['empty fields', '', '', '', FILL_ALL],
    ['a short new password', 'owner-password', 'short', 'short', 'Password must be at least 8 characters'],
    ['a confirmation that differs', 'owner-password', 'brand-new-pass', 'brand-new-pazz', PASSWORDS_DIFFER],
  ])('refuses %s without calling the server', async (_case, current, next, confirm, message) => {
    setup();
    await screen.findByLabelText('Current password');
    await fill(current, next, confirm);
    expect(screen.getByRole('alert')).toHaveTextContent(message);
    expect(fetchMock!.callsTo('POST', PATH)).toHaveLength(0);
  });

  it('shows the server’s answer to a wrong current password and marks that field', async () => {
    setup({ status: 400, body: { error: 'Current password is incorrect', field: 'currentPassword' } });
    await fill('not-my-password', 'brand-new-pass');
    expect(await screen.findByRole('alert')).toHaveTextContent('Current password is incorrect');
    expect(screen.getByLabelText('Current password')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('New password')).not.toHaveAttribute('aria-invalid');
  });

  it('goes back to the dashboard on Cancel', async () => {
    setup();
    await userEvent.click(await screen.findByRole('link', { name: 'Cancel' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/admin$/));
  });
});
