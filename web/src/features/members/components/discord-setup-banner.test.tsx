import { render, screen } from '@testing-library/react';
import { SWRConfig } from 'swr';
import { swrConfig } from '@/lib/api';
import { mockFetch } from '@/test/fetch-mock';
import { DISCORD_SETUP_PATH, DiscordSetupBanner } from './discord-setup-banner';

function renderBanner() {
  return render(
    <SWRConfig value={{ ...swrConfig, provider: () => new Map() }}>
      <DiscordSetupBanner />
    </SWRConfig>,
  );
}

describe('DiscordSetupBanner', () => {
  it('names each missing permission with its fix', async () => {
    mockFetch({
      [`GET ${DISCORD_SETUP_PATH}`]: {
        status: 200,
        body: {
          checkedAt: '2026-11-23T09:00:00.000Z',
          error: null,
          problems: [{ problem: 'In #logs the bot lacks "View Channel".', fix: 'Edit #logs → Permissions.' }],
        },
      },
    });
    renderBanner();
    expect(await screen.findByRole('alert')).toHaveTextContent('In #logs the bot lacks "View Channel". Edit #logs → Permissions.');
  });

  it('lists the Discord actions waiting for a fix, each reason with its count', async () => {
    const message =
      'Waiting for a fix (404 10011: Unknown Role): The Verified role "Verified" does not exist in Discord (deleted or renamed). Fix: Set the Verified role setting.';
    mockFetch({
      [`GET ${DISCORD_SETUP_PATH}`]: {
        status: 200,
        body: { checkedAt: '2026-11-23T09:00:00.000Z', error: null, problems: [], waiting: { count: 3, reasons: [{ message, count: 3 }] } },
      },
    });
    renderBanner();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('3 Discord actions are waiting for a fix on your Discord server');
    expect(alert).toHaveTextContent('Nothing is lost');
    expect(alert).toHaveTextContent(`3 × ${message}`);
  });

  it('shows nothing when the server is set up right', async () => {
    const fetchMock = mockFetch({
      [`GET ${DISCORD_SETUP_PATH}`]: { status: 200, body: { checkedAt: '2026-11-23T09:00:00.000Z', error: null, problems: [] } },
    });
    renderBanner();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetchMock.calls.length).toBe(1);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says plainly when Discord rejects the bot token: work paused, nothing lost, and the fix', async () => {
    mockFetch({
      [`GET ${DISCORD_SETUP_PATH}`]: {
        status: 200,
        body: {
          checkedAt: '2026-11-23T09:00:00.000Z',
          error: null,
          problems: [],
          token: {
            status: 'rejected',
            since: '2026-11-23T08:55:00.000Z',
            nextProbeAt: '2026-11-23T09:00:05.000Z',
            fix: 'Reset the token in the Developer Portal.',
          },
          invalidRequests: { total: 3, limit: 10000, budget: 'open' },
        },
      },
    });
    renderBanner();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Discord rejected the bot token: all Discord work is paused');
    expect(alert).toHaveTextContent('Nothing is lost');
    expect(alert).toHaveTextContent('Reset the token in the Developer Portal.');
  });

  it('warns once the server holds its calls back for the invalid-request budget, and not before', async () => {
    const report = (total: number) => ({
      checkedAt: '2026-11-23T09:00:00.000Z',
      error: null,
      problems: [],
      token: { status: 'ok', since: null, nextProbeAt: null, fix: null },
      invalidRequests: { total, limit: 10000, budget: total >= 2500 ? 'slowed' : 'open' },
    });
    mockFetch({ [`GET ${DISCORD_SETUP_PATH}`]: { status: 200, body: report(2500) } });
    const { unmount } = renderBanner();
    expect(await screen.findByRole('alert')).toHaveTextContent('Discord refused 2,500 requests in the last 10 minutes');
    unmount();
    const fetchMock = mockFetch({ [`GET ${DISCORD_SETUP_PATH}`]: { status: 200, body: report(2499) } });
    renderBanner();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetchMock.calls.length).toBe(1);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
