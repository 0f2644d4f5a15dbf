import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock } from '@/test/fetch-mock';
import { renderApp, settle } from '@/test/render-app';

let fetchMock: FetchMock;
beforeEach(() => {
  fetchMock = mockFetch({ 'GET /api/config': { body: { dataRetentionDays: 14 } }, 'GET /api/consent/token': { body: { token: 't' } } });
});
afterEach(() => fetchMock.restore());

describe('routes', () => {
  it.each(['/nope', '/admin/nope/deeper', '/rules/extra'])("shows the '404 Page Not Found' card for %s", async (path) => {
    renderApp(path);
    expect(screen.getByRole('heading', { level: 1, name: '404 Page Not Found' })).toBeInTheDocument();
    await settle();
  });

  it.each([
    ['/setup', 'Admin Setup'],
    ['/admin/login', 'Staff Login'],
    ['/admin', 'Admin Dashboard'],
    ['/admin/manual-entry', 'Manual Entry Creation'],
    ['/admin/create-staff', 'Create Staff Account'],
    ['/admin/account', 'Change Password'],
    ['/admin/staff', 'Staff Management'],
    ['/admin/audit', 'Audit Log'],
    ['/admin/user/123456789012345678', 'Gatekeeper'],
  ])('loads the lazy staff screen %s', async (path, heading) => {
    renderApp(path);
    expect(await screen.findByRole('heading', { level: 1, name: heading })).toBeInTheDocument();
  });

  it('shows the error page, whose Try Again goes back to the consent page', async () => {
    renderApp('/error');
    expect(screen.getByRole('heading', { name: 'Verification Failed' })).toBeInTheDocument();
    expect(screen.getByText("We couldn't verify your account. Please contact server staff for assistance.")).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
    expect(screen.getByRole('heading', { name: 'Server Verification' })).toBeInTheDocument();
    await settle();
  });

  it.each([
    ['/privacy', 'Privacy Policy'],
    ['/terms', 'Terms of Service'],
  ])('shows %s with its date and a way back to verification', async (path, title) => {
    renderApp(path);
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
    expect(screen.getByText('Last updated November 23, 2026')).toBeInTheDocument();
    const backButtons = screen.getAllByRole('button', { name: 'Back to Verification' });
    await userEvent.click(backButtons[0]!);
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
    await settle();
  });

  it('states the policy facts in the privacy policy, with the retention from /api/config', async () => {
    renderApp('/privacy');
    await screen.findByRole('heading', { name: 'Privacy Policy' });
    await waitFor(() => expect(screen.getByText(/deleted automatically 14 days after/)).toBeInTheDocument());
    const text = document.body.textContent ?? '';
    for (const fact of [
      'keyed (salted) SHA-256 hash of your IP address',
      'third-party proxy-check service',
      'device fingerprint hash',
      'Audit logs',
      'Admin notes',
      'avatar URL',
      'we keep only your Discord ID and username',
      'at least 13 years old',
      '16 if you live in the European Union',
      'within 30 days',
      '/privacy show',
      '/privacy delete',
    ]) {
      expect(text).toContain(fact);
    }
  });

  it('states the notice period and the liability cap in the terms', async () => {
    renderApp('/terms');
    await screen.findByRole('heading', { name: 'Terms of Service' });
    const text = document.body.textContent ?? '';
    expect(text).toContain("at least 30 days' notice of material changes");
    expect(text).toContain('limited to $100 USD');
    await settle();
  });

  it('shows the sandbox banner on every page when the server is in sandbox mode', async () => {
    fetchMock.restore();
    fetchMock = mockFetch({
      'GET /api/config': { body: { dataRetentionDays: 30, sandbox: true, sandboxDiscordUrl: 'http://127.0.0.1:3000/' } },
    });
    renderApp('/nope');
    expect(await screen.findByText('Sandbox mode')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open the sandbox Discord view' })).toHaveAttribute('href', 'http://127.0.0.1:3000/sandbox');
  });

  it('shows no banner outside sandbox mode', async () => {
    renderApp('/nope');
    await settle();
    expect(screen.queryByText('Sandbox mode')).not.toBeInTheDocument();
  });
});
