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
        body: { checkedAt: '2026-11-23T09:00:00.000Z', error: null, problems: [{ problem: 'In #logs the bot lacks "View Channel".', fix: 'Edit #logs → Permissions.' }] },
      },
    });
    renderBanner();
    expect(await screen.findByRole('alert')).toHaveTextContent('In #logs the bot lacks "View Channel". Edit #logs → Permissions.');
  });

  it('shows nothing when the server is set up right', async () => {
    const fetchMock = mockFetch({ [`GET ${DISCORD_SETUP_PATH}`]: { status: 200, body: { checkedAt: '2026-11-23T09:00:00.000Z', error: null, problems: [] } } });
    renderBanner();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetchMock.calls.length).toBe(1);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
