import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { StatisticsResponse } from '../api/statistics';
import { staffSession } from '@/test/admin-fixtures';

/** Chart.js itself needs a real canvas (the e2e tests draw it in Chromium): here each chart's configuration is recorded. */
const charts: {
  canvas: HTMLCanvasElement;
  config: { data: { labels: string[]; datasets: { label: string; data: number[] }[] }; options: { indexAxis: string } };
  destroyed: boolean;
}[] = [];
jest.mock('../components/charts/chart-setup', () => ({
  Chart: class {
    entry: (typeof charts)[number];
    constructor(canvas: HTMLCanvasElement, config: (typeof charts)[number]['config']) {
      this.entry = { canvas, config, destroyed: false };
      charts.push(this.entry);
    }
    destroy() {
      this.entry.destroyed = true;
    }
  },
}));

let fetchMock: FetchMock;
afterEach(() => {
  fetchMock.restore();
  charts.length = 0;
});

function stats(periodDays: 7 | 30 | 90, verified: number): StatisticsResponse {
  return {
    periodDays,
    from: '2025-03-01',
    verificationsPerDay: [
      { day: '2025-03-01', counts: { verified, denied: 1 } },
      { day: '2025-03-02', counts: { limited_access: 2, denied_alt: 1, pending: 4 } },
    ],
    altLinksPerDay: [{ day: '2025-03-01', counts: { certain: 1, medium: 3 } }],
    vpn: { attempts: 8, vpnAttempts: 2, providers: [{ provider: 'NordVPN', attempts: 2 }] },
    appealsPerDay: [],
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
    expect(screen.getByText('Limited Access: 2')).toBeInTheDocument();
    expect(screen.getByText('Denied (alt): 1')).toBeInTheDocument();
    expect(screen.getByText('Pending review: 4')).toBeInTheDocument();
    expect(screen.getByText('Medium: 3')).toBeInTheDocument();
    // weak evidence (possible links) is no alt statistic
    expect(screen.queryByText(/Possible/)).not.toBeInTheDocument();
    expect(screen.getByText('2 of 8 attempts through a VPN (25%)')).toBeInTheDocument();
    expect(screen.getByText('NordVPN')).toBeInTheDocument();
    expect(screen.getByText('Raid alarms: 1')).toBeInTheDocument();

    // Chart.js draws each chart on its canvas, every day of the period on the axis (zero where nothing happened)
    await waitFor(() => expect(charts).toHaveLength(5));
    const verifications = charts.find((c) => c.canvas.getAttribute('aria-label')?.startsWith('Verifications per day by outcome'))!;
    expect(verifications.canvas).toHaveAttribute('role', 'img');
    expect(verifications.canvas).toHaveAttribute(
      'aria-label',
      'Verifications per day by outcome. Verified: 5, Limited Access: 2, Denied: 1, Denied (alt): 1, Pending review: 4',
    );
    expect(verifications.config.data.labels).toEqual([
      '2025-03-01',
      '2025-03-02',
      '2025-03-03',
      '2025-03-04',
      '2025-03-05',
      '2025-03-06',
      '2025-03-07',
    ]);
    expect(verifications.config.data.datasets.map((d) => [d.label, d.data])).toEqual([
      ['Verified', [5, 0, 0, 0, 0, 0, 0]],
      ['Limited Access', [0, 2, 0, 0, 0, 0, 0]],
      ['Denied', [1, 0, 0, 0, 0, 0, 0]],
      ['Denied (alt)', [0, 1, 0, 0, 0, 0, 0]],
      ['Pending review', [0, 4, 0, 0, 0, 0, 0]],
    ]);
    const providers = charts.find((c) => c.canvas.getAttribute('aria-label')?.startsWith('Attempts per VPN provider'))!;
    expect(providers.config.options.indexAxis).toBe('y');
    expect(providers.config.data.labels).toEqual(['NordVPN']);
    // the text alternative: the same numbers in a table, days with nothing left out
    const table = screen.getByRole('table', { name: 'Verifications per day by outcome' });
    expect(
      within(table)
        .getAllByRole('row')
        .map((row) => row.textContent),
    ).toEqual(['DayVerifiedLimited AccessDeniedDenied (alt)Pending review', '2025-03-0150100', '2025-03-0202014']);

    await userEvent.click(screen.getByRole('button', { name: '30 days' }));
    expect(await screen.findByText('Verified: 40')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '30 days' })).toHaveAttribute('aria-pressed', 'true');
    await waitFor(() =>
      expect(
        charts.find(
          (c) => c.canvas.getAttribute('aria-label')?.startsWith('Verifications per day by outcome. Verified: 40') && !c.destroyed,
        ),
      ).toBeDefined(),
    );
  });

  it('draws appeals per day: submitted, approved and rejected', async () => {
    setup({
      'GET /api/admin/statistics?days=7': {
        body: { ...stats(7, 1), appealsPerDay: [{ day: '2025-03-03', counts: { submitted: 2, approved: 1 } }] },
      },
    });
    expect(await screen.findByRole('heading', { name: 'Appeals per day' })).toBeInTheDocument();
    expect(screen.getByText('Submitted: 2')).toBeInTheDocument();
    expect(screen.getByText('Approved: 1')).toBeInTheDocument();
    expect(screen.getByText('Rejected: 0')).toBeInTheDocument();
    await waitFor(() =>
      expect(charts.find((c) => c.canvas.getAttribute('aria-label')?.startsWith('Appeals per day by decision'))).toBeDefined(),
    );
    const appeals = charts.find((c) => c.canvas.getAttribute('aria-label')?.startsWith('Appeals per day by decision'))!;
    expect(appeals.config.data.datasets.map((d) => [d.label, d.data])).toEqual([
      ['Submitted', [0, 0, 2, 0, 0, 0, 0]],
      ['Approved', [0, 0, 1, 0, 0, 0, 0]],
      ['Rejected', [0, 0, 0, 0, 0, 0, 0]],
    ]);
  });

  it('shows a load error', async () => {
    setup({ 'GET /api/admin/statistics?days=7': { status: 500, body: { error: 'Internal error' } } });
    expect(await screen.findByText('Could not load statistics')).toBeInTheDocument();
  });
});
