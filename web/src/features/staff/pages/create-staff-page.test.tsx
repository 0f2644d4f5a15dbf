import { act, fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import { flush, listPage, staffSession, usersUrl } from '@/test/admin-fixtures';
import { RETURN_DELAY_MS } from './create-staff-page';

let fetchMock: FetchMock;
const AFTER_NEXT_FRAME_MS = 50;
afterEach(async () => {
  jest.useRealTimers();
  await flush(); // lets the last answers land inside act
  fetchMock.restore();
});

function setup(create: MockRoute = { status: 201, body: { success: true } }) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: staffSession },
    [`GET ${usersUrl()}`]: { body: listPage([]) },
    'POST /api/admin/create-staff': create,
  });
  renderApp('/admin/create-staff');
}

describe('create staff page', () => {
  it('shows the fields, the password hint and the validation messages', async () => {
    setup();
    expect(await screen.findByRole('heading', { level: 1, name: 'Create Staff Account' })).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Password must be at least 8 characters long');
    await userEvent.click(screen.getByRole('button', { name: 'Create Staff Account' }));
    expect(screen.getByText('Please fill in all fields')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Username'), 'newmod');
    await userEvent.type(screen.getByLabelText('Password'), 'seven77');
    await userEvent.click(screen.getByRole('button', { name: 'Create Staff Account' }));
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', '/api/admin/create-staff')).toHaveLength(0);
  });

  it('creates the account, clears the fields and returns to /admin after 1.5 s', async () => {
    setup();
    await userEvent.type(await screen.findByLabelText('Username'), 'newmod');
    await userEvent.type(screen.getByLabelText('Password'), 'eight888');
    await flush();

    // the clock is faked from the click on, so the 1.5 s wait can be stepped through
    jest.useFakeTimers();
    fireEvent.click(screen.getByRole('button', { name: 'Create Staff Account' }));
    await act(() => jest.advanceTimersByTimeAsync(0));

    expect(fetchMock.callsTo('POST', '/api/admin/create-staff')[0]?.body).toEqual({ username: 'newmod', password: 'eight888' });
    // Preact runs effects after the next frame (at the latest 35 ms on): the toast appears once that much time has passed
    await act(() => jest.advanceTimersByTimeAsync(AFTER_NEXT_FRAME_MS));
    expect(screen.getByText('newmod can now sign in to the dashboard.').closest('[data-variant]')).toHaveTextContent(
      'Staff account created',
    );
    expect(screen.getByLabelText('Username')).toHaveValue('');
    expect(screen.getByLabelText('Password')).toHaveValue('');
    // the success box carries a check, not the warning triangle
    const successBox = screen.getByText('Returning to the dashboard...').closest('[role="note"]');
    expect(successBox?.querySelector('svg')).toHaveAttribute('data-icon', 'check');

    expect(RETURN_DELAY_MS).toBe(1500);
    await act(() => jest.advanceTimersByTimeAsync(RETURN_DELAY_MS - 1 - AFTER_NEXT_FRAME_MS));
    expect(screen.getByTestId('location')).toHaveTextContent('/admin/create-staff');
    await act(() => jest.advanceTimersByTimeAsync(1));
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/admin$/);
  });

  it("shows 'Creating...' while the request runs", async () => {
    setup(() => new Promise(() => undefined));
    await userEvent.type(await screen.findByLabelText('Username'), 'newmod');
    await userEvent.type(screen.getByLabelText('Password'), 'eight888');
    await userEvent.click(screen.getByRole('button', { name: 'Create Staff Account' }));
    expect(await screen.findByRole('button', { name: 'Creating...' })).toBeDisabled();
  });

  it.each([
    [{ status: 409, body: { error: 'Username already exists', code: 'conflict' } }, 'Username already exists'],
    [{ status: 500, body: '' }, 'Failed to create staff account'],
  ])('toasts a failure and stays', async (reply, message) => {
    setup(reply);
    await userEvent.type(await screen.findByLabelText('Username'), 'newmod');
    await userEvent.type(screen.getByLabelText('Password'), 'eight888');
    await userEvent.click(screen.getByRole('button', { name: 'Create Staff Account' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(screen.getByLabelText('Username')).toHaveValue('newmod');
    expect(screen.getByTestId('location')).toHaveTextContent('/admin/create-staff');
  });

  it('goes back to the dashboard on Cancel', async () => {
    setup();
    await userEvent.click(await screen.findByRole('link', { name: 'Cancel' }));
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/admin$/);
  });
});
