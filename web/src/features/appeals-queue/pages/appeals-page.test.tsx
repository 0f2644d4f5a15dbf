import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { AppealOutcome, AppealQueue } from '../api/appeals';

const plan: AppealOutcome = {
  dismissedLinks: [{ discordId: '300000000000000001', username: 'main', confidence: 'certain', detectionMethod: 'both' }],
  clearedManualStatus: null,
  liftsLimitedAccess: false,
  liftsBan: true,
  roles: { add: ['verified'], remove: ['unverified', 'limited'] },
};
import { buildUser, staffSession } from '@/test/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

const queue: AppealQueue = {
  open: 1,
  appeals: [
    {
      id: 7,
      message: '<script>alert(1)</script> it is me',
      status: 'open',
      standingAtFiling: 'certain_alt',
      standing: 'certain_alt',
      createdAt: '2026-01-01T12:00:00.000Z',
      member: buildUser({
        id: 3,
        discordId: '300000000000000003',
        username: 'flagged',
        isLinkedAsAlt: true,
        altsFound: 1,
        timestamp: '2026-01-01T11:00:00.000Z',
      }),
      evidence: {
        links: { certain: 1, medium: 0 },
        topLinks: [
          {
            discordId: '300000000000000001',
            username: 'main',
            confidence: 'certain',
            detectionMethod: 'both',
            why: 'same device model, shown by no other member; same internet address (certain)',
          },
        ],
        vpnProvider: null,
        gateReason: null,
      },
      decidedAt: null,
      decidedByName: null,
      decisionReason: null,
      outcome: null,
    },
  ],
};

function setup(routes: Record<string, MockRoute>) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: staffSession },
    'GET /api/admin/appeals/count': { body: { open: 1 } },
    ...routes,
  });
  renderApp('/admin/appeals');
}

describe('appeals page', () => {
  it("lists the appeal with the member's badges, evidence and the message as text", async () => {
    setup({ 'GET /api/admin/appeals': { body: queue } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Appeals' })).toBeInTheDocument();
    // the badge and the standing line read the same label
    expect(await screen.findAllByText('Certain Alt')).toHaveLength(2);
    expect(
      screen.getByText('Linked to main (300000000000000001): same device model, shown by no other member; same internet address (certain)'),
    ).toBeInTheDocument();
    // the visitor's words are text, never markup
    expect(screen.getByText('<script>alert(1)</script> it is me')).toBeInTheDocument();
    expect(document.querySelector('blockquote script')).toBeNull();
  });

  it('rejects with a reason, refusing an empty one in the page', async () => {
    let decided = false;
    setup({
      'GET /api/admin/appeals': () => ({ body: decided ? { appeals: [], open: 0 } : queue }),
      'POST /api/admin/appeals/7/reject': () => {
        decided = true;
        return { body: { success: true } };
      },
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Reject with reason' }));
    await user.click(screen.getByRole('button', { name: 'Reject appeal' }));
    expect(screen.getByRole('alert')).toHaveTextContent('The reason cannot be empty');
    await user.type(screen.getByLabelText('Reason (the visitor sees it)'), 'Known VPN');
    await user.click(screen.getByRole('button', { name: 'Reject appeal' }));
    expect(await screen.findByText('No open appeals')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', '/api/admin/appeals/7/reject')[0]!.body).toEqual({ reason: 'Known VPN' });
  });

  it('approves after the confirmation, and shows a 409 as an error toast', async () => {
    setup({
      'GET /api/admin/appeals': { body: queue },
      'GET /api/admin/appeals/7/preview': { body: plan },
      'POST /api/admin/appeals/7/approve': { status: 409, body: { error: 'This appeal has already been decided' } },
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Approve' }));
    const dialog = await screen.findByRole('alertdialog');
    // before approving: which alt links it dismisses and which roles change
    const preview = await within(dialog).findByTestId('approval-preview');
    expect(
      within(preview)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      'Dismisses the alt link as not the same person: @main (certain)',
      "Lifts the ban from the button's denial, if there is one",
      'Roles: adds Verified; removes Unverified, Limited Access',
    ]);
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(screen.getAllByText('This appeal has already been decided').length).toBeGreaterThan(0));
  });

  it("after approving, says what happens next in the server's words (the member may not be in the server)", async () => {
    const next =
      'They get the Verified role now if they are in the server. If they were removed (kicked, or banned: the ban is lifted) or left, they rejoin by verifying again on the website, and that join gives them the Verified role.';
    setup({
      'GET /api/admin/appeals': { body: queue },
      'GET /api/admin/appeals/7/preview': { body: plan },
      'POST /api/admin/appeals/7/approve': { body: { success: true, next, outcome: plan } },
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Approve' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Approve' }));
    // after it: what it did, then what happens next
    await waitFor(() =>
      expect(
        screen.getAllByText(
          (text) => text.startsWith('Dismissed the alt link as not the same person: @main (certain)') && text.endsWith(next),
        ).length,
      ).toBeGreaterThan(0),
    );
  });

  it("lists decided appeals under 'Decided' with who decided, when, why and what it did", async () => {
    const decided: AppealQueue = {
      open: 0,
      appeals: [
        { ...queue.appeals[0]!, id: 8, status: 'approved', decidedAt: '2026-01-02T09:30:00.000Z', decidedByName: 'owner', outcome: plan },
        {
          ...queue.appeals[0]!,
          id: 6,
          status: 'rejected',
          decidedAt: '2026-01-01T15:00:00.000Z',
          decidedByName: 'Mod',
          decisionReason: 'Same card as main',
        },
      ],
    };
    setup({ 'GET /api/admin/appeals': { body: queue }, 'GET /api/admin/appeals?status=decided': { body: decided } });
    const user = userEvent.setup();
    await screen.findByText('Open appeals (1)');
    await user.click(screen.getByRole('button', { name: 'Decided' }));
    const decisions = await screen.findAllByTestId('appeal-decision');
    expect(decisions[0]).toHaveTextContent(/^Approved by owner on .*Dismissed the alt link as not the same person: @main \(certain\)/);
    expect(decisions[1]).toHaveTextContent(/^Rejected by Mod on .*Reason: Same card as main/);
    expect(screen.queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument();
  });
});
