import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { closeWindow, navigateToUrl } from '@/lib/navigation';
import { heldRoute, mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';

jest.mock('@/lib/navigation', () => ({ navigateToUrl: jest.fn(), closeWindow: jest.fn() }));

const links = { appUrl: 'discord://-/channels/111/222', webUrl: 'https://discord.com/channels/111/222' };
let fetchMock: FetchMock;

function setup(vpn: MockRoute, channel: MockRoute = { body: links }, config: MockRoute = { body: { dataRetentionDays: 30 } }) {
  fetchMock = mockFetch({
    'GET /api/config': config,
    'GET /api/verification/vpn-status': vpn,
    'GET /api/discord/verification-channel': channel,
  });
  renderApp('/success');
}

beforeEach(() => {
  jest.mocked(navigateToUrl).mockReset();
  jest.mocked(closeWindow).mockReset();
});
afterEach(() => {
  fetchMock.restore();
  jest.useRealTimers();
});

describe('success page', () => {
  it('shows the normal variant without a VPN', async () => {
    setup({ body: { vpnDetected: false, vpnProvider: null } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Website Verification Complete! ✓' })).toBeInTheDocument();
    expect(screen.getByText("You've been added to the Discord server!")).toBeInTheDocument();
    // one check mark: the title's; no check icon repeats it
    expect(document.querySelector('svg[data-icon="check"]')).toBeNull();
    const steps = screen.getAllByRole('listitem').map((item) => item.textContent);
    expect(steps).toHaveLength(4);
    expect(steps[0]).toMatch(/Open the verification channel/);
    expect(steps[1]).toMatch(/Read the server rules/);
    expect(steps[2]).toMatch(/Click the Complete Verification! button/);
    expect(steps[3]).toMatch(/access to all channels/);
    expect(screen.queryByText(/Limited Access/)).not.toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Open Verification Channel' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Close This Window' })).toBeInTheDocument();
  });

  it('shows the Limited Access variant with the VPN provider and the two channels', async () => {
    setup({ body: { vpnDetected: true, vpnProvider: 'NordVPN' } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Website Step Complete - Limited Access Only' })).toBeInTheDocument();
    expect(screen.getByText('NordVPN')).toBeInTheDocument();
    const note = screen.getByText(/Limited Access covers only two channels/);
    expect(note).toHaveTextContent('Limited Access covers only two channels: #raffle-confirmation-chat and #stream-general-chat.');
    expect(screen.getByText('To get full access, disconnect your VPN and verify again.')).toBeInTheDocument();
    expect(screen.queryByText('Website Verification Complete! ✓')).not.toBeInTheDocument();
    expect(screen.queryByText("You've been added to the Discord server!")).not.toBeInTheDocument();
  });

  it('shows a certain alt the denial and the way to appeal, never the success text', async () => {
    fetchMock = mockFetch({
      'GET /api/config': { body: { dataRetentionDays: 30 } },
      'GET /api/verification/vpn-status': { body: { vpnDetected: false, vpnProvider: null, standing: 'certain_alt' } },
      'GET /api/appeal': { status: 401, body: { error: 'Sign in with Discord again to ask staff for a review' } },
    });
    renderApp('/success');
    expect(await screen.findByRole('heading', { level: 1, name: 'Verification Denied' })).toBeInTheDocument();
    expect(
      screen.getByText(
        "This Discord account is linked to another account that is already verified on this server, so it can't be given access.",
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText('Website Verification Complete! ✓')).not.toBeInTheDocument();
    expect(screen.queryByText("You've been added to the Discord server!")).not.toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Ask staff to review' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Ask Staff to Review' })).toBeInTheDocument();
  });

  it('offers the review on the Limited Access page too', async () => {
    setup({ body: { vpnDetected: true, vpnProvider: 'NordVPN', standing: 'limited' } });
    await screen.findByRole('heading', { level: 1, name: 'Website Step Complete - Limited Access Only' });
    expect(screen.getByRole('button', { name: 'Ask staff to review' })).toBeInTheDocument();
  });

  it('hides Open Verification Channel until the channel links load', async () => {
    const { route, answer } = heldRoute();
    setup({ body: { vpnDetected: false } }, route);
    await screen.findByRole('heading', { name: 'Website Verification Complete! ✓' });
    expect(screen.queryByRole('button', { name: 'Open Verification Channel' })).not.toBeInTheDocument();
    answer({ body: links });
    expect(await screen.findByRole('button', { name: 'Open Verification Channel' })).toBeInTheDocument();
  });

  it('tries the Discord app first, then falls back to the web link', async () => {
    setup({ body: { vpnDetected: false } });
    const button = await screen.findByRole('button', { name: 'Open Verification Channel' });
    jest.useFakeTimers();
    button.click();
    expect(navigateToUrl).toHaveBeenCalledWith(links.appUrl);
    jest.advanceTimersByTime(1_500);
    expect(navigateToUrl).toHaveBeenLastCalledWith(links.webUrl);
  });

  it('stays in the app when it took over (the page lost focus)', async () => {
    setup({ body: { vpnDetected: false } });
    const button = await screen.findByRole('button', { name: 'Open Verification Channel' });
    jest.useFakeTimers();
    button.click();
    window.dispatchEvent(new Event('blur'));
    jest.advanceTimersByTime(1_500);
    expect(navigateToUrl).toHaveBeenCalledTimes(1);
    expect(navigateToUrl).toHaveBeenCalledWith(links.appUrl);
  });

  it('opens the web link directly in sandbox mode', async () => {
    const sandboxLinks = { appUrl: 'discord://-/channels/1/2', webUrl: 'http://127.0.0.1:3000/sandbox/channels/1/2' };
    setup({ body: { vpnDetected: false } }, { body: sandboxLinks }, { body: { dataRetentionDays: 30, sandbox: true } });
    await screen.findByText('Sandbox mode');
    await userEvent.click(await screen.findByRole('button', { name: 'Open Verification Channel' }));
    expect(navigateToUrl).toHaveBeenCalledTimes(1);
    expect(navigateToUrl).toHaveBeenCalledWith(sandboxLinks.webUrl);
  });

  it('closes the window', async () => {
    setup({ body: { vpnDetected: false } });
    await userEvent.click(await screen.findByRole('button', { name: 'Close This Window' }));
    expect(closeWindow).toHaveBeenCalled();
  });

  it('falls back to the normal variant when the VPN status cannot be read', async () => {
    setup({ status: 500 });
    expect(await screen.findByRole('heading', { name: 'Website Verification Complete! ✓' })).toBeInTheDocument();
    await waitFor(() => expect(fetchMock.callsTo('GET', '/api/discord/verification-channel')).toHaveLength(1));
  });
});
