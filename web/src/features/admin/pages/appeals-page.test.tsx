import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { AppealQueue } from '../api/appeals';
import { buildUser, staffSession } from '../test-support/admin-fixtures';

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
      member: buildUser({ id: 3, discordId: '300000000000000003', username: 'flagged', isLinkedAsAlt: true, altsFound: 1, timestamp: '2026-01-01T11:00:00.000Z' }),
      evidence: {
        links: { certain: 1, medium: 0 },
        topLinks: [{ discordId: '300000000000000001', username: 'main', confidence: 'certain', detectionMethod: 'both', why: 'same device model, shown by no other member; same internet address (certain)' }],
        vpnProvider: null,
        gateReason: null,
      },
    },
  ],
};

function setup(routes: Record<string, MockRoute>) {
  fetchMock = mockFetch({ 'GET /api/config': { body: { dataRetentionDays: 30 } }, 'GET /api/admin/session': { body: staffSession }, 'GET /api/admin/appeals/count': { body: { open: 1 } }, ...routes });
  renderApp('/admin/appeals');
}

describe('appeals page', () => {
  it("lists the appeal with the member's badges, evidence and the message as text", async () => {
    setup({ 'GET /api/admin/appeals': { body: queue } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Appeals' })).toBeInTheDocument();
    expect(await screen.findByText('Certain Alt')).toBeInTheDocument();
    expect(screen.getByText('Linked to main (300000000000000001): same device model, shown by no other member; same internet address (certain)')).toBeInTheDocument();
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
    setup({ 'GET /api/admin/appeals': { body: queue }, 'POST /api/admin/appeals/7/approve': { status: 409, body: { error: 'This appeal has already been decided' } } });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Approve' }));
    const dialog = await screen.findByRole('alertdialog');
    expect(dialog).toHaveTextContent('This dismisses the alt links of flagged (300000000000000003) and grants the Verified role.');
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(screen.getAllByText('This appeal has already been decided').length).toBeGreaterThan(0));
  });

  it('after approving, says what happens next in the server\'s words (the member may not be in the server)', async () => {
    const next = 'They get the Verified role now if they are in the server. If they were removed (kicked, or banned: the ban is lifted) or left, they rejoin by verifying again on the website, and that join gives them the Verified role.';
    setup({ 'GET /api/admin/appeals': { body: queue }, 'POST /api/admin/appeals/7/approve': { body: { success: true, next } } });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Approve' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(screen.getAllByText(next).length).toBeGreaterThan(0));
  });
});
