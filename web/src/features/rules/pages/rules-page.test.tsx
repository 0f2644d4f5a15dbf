import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { heldRoute, mockFetch, type FetchMock, type MockReply } from '@/test/fetch-mock';
import { renderApp, settle } from '@/test/render-app';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

function setup(confirm: MockReply | (() => Promise<MockReply>)) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'POST /api/rules/confirm': confirm,
    'GET /api/verification/vpn-status': { body: { vpnDetected: false, vpnProvider: null } },
    'GET /api/discord/verification-channel': { body: { appUrl: 'discord://-/channels/1/2', webUrl: 'https://discord.com/channels/1/2' } },
  });
  renderApp('/rules');
}

describe('rules page', () => {
  it('lists the five rules and the violations note', async () => {
    setup({ status: 204 });
    await settle();
    expect(screen.getByRole('heading', { level: 1, name: 'Server Rules & Guidelines' })).toBeInTheDocument();
    const titles = screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent);
    expect(titles).toEqual([
      'Be Respectful',
      'No Spam or Self-Promotion',
      "Follow Discord's Terms of Service",
      'Keep Content Appropriate',
      'Listen to Moderators',
    ]);
    expect(screen.getByText(/warnings, mutes, kicks or permanent bans/)).toBeInTheDocument();
  });

  it("shows 'Confirming...' while posting, then goes to /success", async () => {
    const { route, answer } = heldRoute();
    setup(route);
    await userEvent.click(screen.getByRole('button', { name: 'I Agree to the Rules' }));

    const pending = await screen.findByRole('button', { name: 'Confirming...' });
    expect(pending).toBeDisabled();
    answer({ status: 200, body: { success: true } });

    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/success'));
    expect(await screen.findByRole('heading', { name: 'Website Verification Complete! ✓' })).toBeInTheDocument();
    const [post] = fetchMock.callsTo('POST', '/api/rules/confirm');
    expect(post?.init?.body).toBeUndefined();
  });

  it('goes to /error when the confirmation fails', async () => {
    setup({ status: 401, body: { error: 'No verification session', code: 'unauthorized' } });
    await userEvent.click(screen.getByRole('button', { name: 'I Agree to the Rules' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/error'));
    expect(screen.getByRole('heading', { name: 'Verification Failed' })).toBeInTheDocument();
  });

  it('goes to /error on a network failure', async () => {
    setup({ networkError: true });
    await userEvent.click(screen.getByRole('button', { name: 'I Agree to the Rules' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/error'));
  });
});
