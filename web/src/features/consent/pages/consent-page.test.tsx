import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FingerprintData } from '@shared/fingerprint';
import { collectFingerprint } from '@/features/fingerprint/fingerprint-collector';
import { navigateToUrl } from '@/lib/navigation';
import { mockFetch, type FetchMock } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';

jest.mock('@/lib/navigation', () => ({ navigateToUrl: jest.fn(), closeWindow: jest.fn() }));
jest.mock('@/features/fingerprint/fingerprint-collector', () => ({ collectFingerprint: jest.fn() }));

const fingerprintData: FingerprintData = {
  canvas: '0123456789abcdef0123456789abcdef',
  webgl: 'webgl-no-debug',
  audio: '124.04347527516074',
  screen: '1920x1080x24',
  fonts: 'Arial,Georgia',
  timezone: 'Europe/Paris',
  language: 'fr-FR,fr',
  platform: 'Linux x86_64~Mozilla/5.0',
  hardware: 'cores:8~memory:8~touch:0',
};
const fingerprintHash = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

let fetchMock: FetchMock;
let tokenCount = 0;

function routes(consentStatus: number) {
  return {
    'GET /api/config': { body: { dataRetentionDays: 45, sandbox: false } },
    'GET /api/consent/token': () => ({ body: { token: `token-${++tokenCount}` } }),
    'POST /api/consent': {
      status: consentStatus,
      body: consentStatus === 200 ? { success: true } : { error: 'Invalid consent token', code: 'bad_token' },
    },
  };
}

const browserToken = 'b'.repeat(43);

beforeEach(() => {
  tokenCount = 0;
  window.localStorage.clear();
  jest.mocked(collectFingerprint).mockResolvedValue({ fingerprintData, fingerprintHash });
  jest.mocked(navigateToUrl).mockReset();
});
afterEach(() => fetchMock.restore());

describe('consent page', () => {
  it('names the server the visitor is joining, with its icon, once the server knows it', async () => {
    fetchMock = mockFetch({
      ...routes(200),
      'GET /api/config': {
        body: {
          dataRetentionDays: 45,
          sandbox: false,
          server: { name: 'Pixel Garden', iconUrl: 'https://cdn.discordapp.com/icons/1/abc.png?size=128' },
        },
      },
    });
    renderApp('/');
    const joining = await screen.findByRole('region', { name: 'The server you are joining' });
    expect(joining).toHaveTextContent('You are joining Pixel Garden on Discord.');
    expect(joining.querySelector('img')).toHaveAttribute('src', 'https://cdn.discordapp.com/icons/1/abc.png?size=128');
  });

  it('names no server while Discord has not told the server which one it is', async () => {
    fetchMock = mockFetch(routes(200));
    renderApp('/');
    await screen.findByText(/deleted automatically after 45 days/);
    expect(screen.queryByRole('region', { name: 'The server you are joining' })).not.toBeInTheDocument();
  });

  it('keeps Verify with Discord disabled, with the hint, until the box is ticked', async () => {
    fetchMock = mockFetch(routes(200));
    renderApp('/');
    expect(screen.getByRole('heading', { level: 1, name: 'Server Verification' })).toBeInTheDocument();
    const button = screen.getByRole('button', { name: 'Verify with Discord' });
    expect(button).toBeDisabled();
    expect(screen.getByText('Please check the consent box above to continue')).toBeInTheDocument();
    expect(button).toHaveAccessibleDescription('Please check the consent box above to continue');

    await userEvent.click(screen.getByRole('checkbox'));
    expect(button).toBeEnabled();
    expect(screen.queryByText('Please check the consent box above to continue')).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('checkbox'));
    expect(button).toBeDisabled();
  });

  it('links to the terms and the privacy policy and states the minimum age and the retention period', async () => {
    fetchMock = mockFetch(routes(200));
    renderApp('/');
    expect(screen.getByRole('link', { name: 'Terms of Service' })).toHaveAttribute('href', '/terms');
    expect(screen.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy');
    expect(screen.getByText(/at least 13 years old \(16 in the EU\) to verify/)).toBeInTheDocument();
    expect(await screen.findByText(/deleted automatically after 45 days/)).toBeInTheDocument();
  });

  it('fetches a token on mount, posts consent with the fingerprint, then goes to /oauth/start', async () => {
    fetchMock = mockFetch(routes(200));
    renderApp('/');
    await waitFor(() => expect(fetchMock.callsTo('GET', '/api/consent/token')).toHaveLength(1));

    await userEvent.click(screen.getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Discord' }));

    await waitFor(() => expect(navigateToUrl).toHaveBeenCalledWith('/oauth/start'));
    const [post] = fetchMock.callsTo('POST', '/api/consent');
    expect(post?.body).toEqual({ consent: true, token: 'token-1', fingerprintData, fingerprintHash });
    expect(post?.init?.credentials).toBe('include');
    expect(collectFingerprint).toHaveBeenCalledTimes(1);
  });

  it('keeps the browser token the server answers in local storage and sends it with the next consent', async () => {
    fetchMock = mockFetch({ ...routes(200), 'POST /api/consent': { body: { success: true, browserToken } } });
    const first = renderApp('/');
    await userEvent.click(screen.getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Discord' }));
    await waitFor(() => expect(navigateToUrl).toHaveBeenCalledWith('/oauth/start'));
    expect(fetchMock.callsTo('POST', '/api/consent')[0]?.body).not.toHaveProperty('browserToken');
    expect(window.localStorage.getItem('gk_browser')).toBe(browserToken);

    // the visitor comes back later with another account (the cookie may be gone; the page's copy is sent)
    first.unmount();
    renderApp('/');
    await userEvent.click(screen.getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Discord' }));
    await waitFor(() => expect(fetchMock.callsTo('POST', '/api/consent')).toHaveLength(2));
    expect(fetchMock.callsTo('POST', '/api/consent')[1]?.body).toMatchObject({ browserToken });
  });

  it('never sends a malformed stored token, and never stores a malformed answer', async () => {
    window.localStorage.setItem('gk_browser', 'not a token');
    fetchMock = mockFetch({ ...routes(200), 'POST /api/consent': { body: { success: true, browserToken: '<script>' } } });
    renderApp('/');
    await userEvent.click(screen.getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Discord' }));
    await waitFor(() => expect(navigateToUrl).toHaveBeenCalledWith('/oauth/start'));
    expect(fetchMock.callsTo('POST', '/api/consent')[0]?.body).not.toHaveProperty('browserToken');
    expect(window.localStorage.getItem('gk_browser')).toBe('not a token');
  });

  it('shows the destructive Error toast and stays when consent fails, and can try again with a fresh token', async () => {
    fetchMock = mockFetch(routes(400));
    renderApp('/');
    await userEvent.click(screen.getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Discord' }));

    expect(await screen.findByText('Failed to record consent. Please try again.')).toBeInTheDocument();
    expect(screen.getByText('Error')).toBeInTheDocument();
    expect(navigateToUrl).not.toHaveBeenCalled();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/);
    expect(screen.getByRole('button', { name: 'Verify with Discord' })).toBeEnabled();

    await waitFor(() => expect(fetchMock.callsTo('GET', '/api/consent/token')).toHaveLength(2));
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Discord' }));
    await waitFor(() => expect(fetchMock.callsTo('POST', '/api/consent')).toHaveLength(2));
    expect(fetchMock.callsTo('POST', '/api/consent')[1]?.body).toMatchObject({ token: 'token-2' });
  });

  it('shows the toast when no consent token can be had', async () => {
    fetchMock = mockFetch({ ...routes(200), 'GET /api/consent/token': { status: 500 } });
    renderApp('/');
    await userEvent.click(screen.getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Verify with Discord' }));
    expect(await screen.findByText('Failed to record consent. Please try again.')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', '/api/consent')).toHaveLength(0);
    expect(navigateToUrl).not.toHaveBeenCalled();
  });
});
