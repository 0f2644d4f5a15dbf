import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { StatisticsResponse } from '../api/statistics';
import { staffSession } from '../test-support/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

function stats(periodDays: 7 | 30 | 90, verified: number): StatisticsResponse {
  return {
    periodDays,
    from: '2025-03-01',
    verificationsPerDay: [
      { day: '2025-03-01', counts: { verified, denied: 1 } },
      { day: '2025-03-02', counts: { limited_access: 2 } },
    ],
    altLinksPerDay: [{ day: '2025-03-01', counts: { certain: 1, possible: 3 } }],
    vpn: { attempts: 8, vpnAttempts: 2, providers: [{ provider: 'NordVPN', attempts: 2 }] },
    raidAlarmsPerDay: [{ day: '2025-03-02', alarms: 1 }],
  };
}

function setup(routes: Record<string, MockRoute>) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: staffSession },
    ...routes,
  });
  renderApp('/admin/statistics');
}

describe('statistics page', () => {
  it('shows the charts and totals and switches the period', async () => {
    setup({
      'GET /api/admin/statistics?days=7': { body: stats(7, 5) },
      'GET /api/admin/statistics?days=30': { body: stats(30, 40) },
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Statistics' })).toBeInTheDocument();
    expect(await screen.findByText('Verified: 5')).toBeInTheDocument();
    expect(screen.getByText('Limited access: 2')).toBeInTheDocument();
    expect(screen.getByText('Possible: 3')).toBeInTheDocument();
    expect(screen.getByText('2 of 8 attempts through a VPN (25%)')).toBeInTheDocument();
    expect(screen.getByText('NordVPN')).toBeInTheDocument();
    expect(screen.getByText('Raid alarms: 1')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '30 days' }));
    expect(await screen.findByText('Verified: 40')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '30 days' })).toHaveAttribute('aria-pressed', 'true');
  });

  it('shows a load error', async () => {
    setup({ 'GET /api/admin/statistics?days=7': { status: 500, body: { error: 'Internal error' } } });
    expect(await screen.findByText('Could not load statistics')).toBeInTheDocument();
  });
});
