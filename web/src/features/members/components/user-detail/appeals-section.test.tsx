import { screen, within } from '@testing-library/react';
import { mockFetch, type FetchMock } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { AppealOutcome, MemberAppealView } from '@/features/appeals-queue';
import { buildDetail, staffSession } from '@/test/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

const ID = '100000000000000001';
const outcome: AppealOutcome = {
  dismissedLinks: [],
  clearedManualStatus: 'certain_alt',
  liftsLimitedAccess: false,
  liftsBan: false,
  roles: { add: ['verified'], remove: ['unverified', 'limited'] },
};
const appeals: MemberAppealView[] = [
  {
    id: 9,
    status: 'open',
    standingAtFiling: 'certain_alt',
    message: 'Please look again',
    createdAt: '2026-01-03T10:00:00.000Z',
    decidedAt: null,
    decidedByName: null,
    decisionReason: null,
    outcome: null,
  },
  {
    id: 4,
    status: 'approved',
    standingAtFiling: 'certain_alt',
    message: 'It is my only account',
    createdAt: '2026-01-01T10:00:00.000Z',
    decidedAt: '2026-01-02T10:00:00.000Z',
    decidedByName: 'owner',
    decisionReason: null,
    outcome,
  },
];

function setup(list: MemberAppealView[]) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: staffSession },
    [`GET /api/admin/users/${ID}`]: { body: buildDetail({ discordId: ID, manualAltStatus: 'certain_alt', openAppealId: 9 }) },
    [`GET /api/admin/users/${ID}/appeals`]: { body: { appeals: list } },
  });
  renderApp(`/admin/user/${ID}`);
}

describe("the member page's appeals", () => {
  it('shows the open appeal (badge and section) and the decided ones with who, when and what it did', async () => {
    setup(appeals);
    const section = await screen.findByRole('list', { name: 'Appeals of this member' });
    const open = within(section).getByTestId('member-appeal-9');
    expect(open).toHaveTextContent('Appeal open');
    expect(open).toHaveTextContent('Please look again');
    expect(within(open).getByRole('link', { name: 'Decide it in the Appeals queue' })).toHaveAttribute('href', '/admin/appeals');
    const decided = within(section).getByTestId('member-appeal-4');
    expect(decided).toHaveTextContent(/Approved by owner on/);
    expect(decided).toHaveTextContent('Cleared the manual Certain Alt status');
    // the standing's badges say it too
    expect(within(screen.getByTestId('standing')).getByText('Appeal open')).toBeInTheDocument();
  });

  it('shows no section for a member who never appealed', async () => {
    setup([]);
    await screen.findByTestId('standing');
    expect(screen.queryByRole('heading', { name: 'Appeals' })).not.toBeInTheDocument();
  });
});
