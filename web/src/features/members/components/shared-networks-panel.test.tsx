import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { SharedNetwork } from '../api/shared-networks';
import { buildUser, listPage, staffSession, usersUrl } from '@/test/admin-fixtures';
import { sharedNetworkName, unmarkConfirmText } from './shared-networks-panel';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

const NETWORKS = '/api/admin/shared-networks';
const household: SharedNetwork = {
  networkHash: 'c0ffeec0ffee',
  label: 'Smith household',
  markedBy: 'mod',
  createdAt: '2025-03-05T12:00:00.000Z',
  members: 2,
  member: { discordId: '400000000000000001', username: 'sibling1' },
};
const school: SharedNetwork = {
  networkHash: 'abcdef012345',
  label: null,
  markedBy: null,
  createdAt: '2025-03-06T12:00:00.000Z',
  members: 1,
  member: { discordId: '400000000000000009', username: 'pupil' },
};

function setup(networks: MockRoute, routes: Record<string, MockRoute> = {}) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: staffSession },
    [`GET ${usersUrl()}`]: { body: listPage([buildUser()]) },
    [`GET ${NETWORKS}`]: networks,
    ...routes,
  });
  renderApp('/admin');
}

async function openPanel(name: RegExp | string = /^Shared Networks/): Promise<HTMLElement> {
  const trigger = await screen.findByRole('button', { name });
  expect(trigger).toHaveAttribute('aria-expanded', 'false');
  await userEvent.click(trigger);
  return screen.getByRole('region', { name });
}

describe('dashboard: Shared Networks panel', () => {
  it('starts collapsed with the count, and lists each network with its details', async () => {
    setup({ body: [household, school] });
    expect(await screen.findByRole('heading', { name: 'All Users (1)' })).toBeInTheDocument();
    const panel = await openPanel('Shared Networks (2)');
    expect(within(panel).getByText(/do not count as alt evidence/)).toBeInTheDocument();
    const rows = within(within(panel).getByRole('list', { name: 'Shared networks' })).getAllByRole('listitem');
    expect(rows).toHaveLength(2);

    const first = within(panel).getByRole('listitem', { name: 'Smith household' });
    expect(first).toHaveTextContent('c0ffeec0ffee');
    expect(first).toHaveTextContent('2 member records');
    expect(first).toHaveTextContent('marked by mod on');
    expect(first.querySelector('time')).toHaveAttribute('dateTime', household.createdAt);
    expect(within(first).getByRole('link', { name: 'sibling1' })).toHaveAttribute('href', '/admin/user/400000000000000001');
    expect(within(first).getByRole('button', { name: 'Unmark Smith household' })).toBeEnabled();

    const second = within(panel).getByRole('listitem', { name: 'Network abcdef012345' });
    expect(second).toHaveTextContent('1 member record · marked by unknown');
  });

  it('says when no network is marked', async () => {
    setup({ body: [] });
    const panel = await openPanel('Shared Networks (0)');
    expect(within(panel).getByText('No network is marked as shared.')).toBeInTheDocument();
  });

  it('unmarks a network after the confirmation, through a member on it', async () => {
    let networks = [household, school];
    setup(() => ({ body: networks }), {
      'DELETE /api/admin/users/400000000000000001/shared-network': () => {
        networks = [school];
        return { body: { success: true, sharedNetwork: { marked: false, label: null }, members: 2 } };
      },
    });
    const panel = await openPanel('Shared Networks (2)');
    await userEvent.click(within(panel).getByRole('button', { name: 'Unmark Smith household' }));

    const dialog = await screen.findByRole('alertdialog', { name: 'Unmark Shared Network' });
    expect(dialog).toHaveTextContent(unmarkConfirmText(household));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Unmark' }));

    expect(await screen.findByText('IP and network matches from Smith household count as alt evidence again.')).toBeInTheDocument();
    expect(screen.getByText('Shared network unmarked')).toBeInTheDocument();
    expect(fetchMock.callsTo('DELETE', '/api/admin/users/400000000000000001/shared-network')).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(await screen.findByRole('button', { name: 'Shared Networks (1)' })).toBeInTheDocument();
    expect(screen.queryByRole('listitem', { name: 'Smith household' })).not.toBeInTheDocument();
  });

  it('is usable with the keyboard: open, unmark, cancel with Escape', async () => {
    setup({ body: [household] });
    const trigger = await screen.findByRole('button', { name: 'Shared Networks (1)' });
    act(() => trigger.focus());
    await userEvent.keyboard('{Enter}');
    expect(trigger).toHaveAttribute('aria-expanded', 'true');
    await userEvent.tab(); // the member link
    await userEvent.tab();
    const unmark = screen.getByRole('button', { name: 'Unmark Smith household' });
    expect(unmark).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(await screen.findByRole('alertdialog', { name: 'Unmark Shared Network' })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(fetchMock.calls.filter((call) => call.method === 'DELETE')).toHaveLength(0);
  });

  it("keeps the dialog open and shows the server's message when unmarking fails", async () => {
    setup(
      { body: [household] },
      {
        'DELETE /api/admin/users/400000000000000001/shared-network': {
          status: 409,
          body: { error: "This member's network is not marked as shared", code: 'conflict' },
        },
      },
    );
    const panel = await openPanel();
    await userEvent.click(within(panel).getByRole('button', { name: 'Unmark Smith household' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Unmark Shared Network' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Unmark' }));
    expect(await screen.findByText("This member's network is not marked as shared")).toBeInTheDocument();
    expect(screen.getByText('Error')).toBeInTheDocument();
    expect(screen.getByRole('alertdialog', { name: 'Unmark Shared Network' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Unmark' })).toBeEnabled();
  });

  it('cannot unmark a network without a member to name it by, and says why', async () => {
    const { member: _omitted, ...withoutMember } = household;
    setup({ body: [withoutMember, { ...school, member: null }] });
    const panel = await openPanel();
    const viaDetail = within(panel).getByRole('button', { name: 'Unmark Smith household' });
    expect(viaDetail).toBeDisabled();
    expect(viaDetail).toHaveAccessibleDescription('Unmark it from the detail page of a member on this network.');
    const orphan = within(panel).getByRole('button', { name: `Unmark ${sharedNetworkName(school)}` });
    expect(orphan).toBeDisabled();
    expect(orphan).toHaveAccessibleDescription('No member record is on this network now, so it cannot be unmarked here.');
  });

  it('offers a retry when the list cannot be loaded', async () => {
    let fail = true;
    setup(() => (fail ? { status: 500, body: '' } : { body: [household] }));
    const panel = await openPanel('Shared Networks');
    expect(await within(panel).findByRole('alert')).toHaveTextContent('Could not load the shared networks');
    fail = false;
    await userEvent.click(within(panel).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('button', { name: 'Shared Networks (1)' })).toBeInTheDocument();
    expect(
      within(screen.getByRole('region', { name: 'Shared Networks (1)' })).getByRole('listitem', { name: 'Smith household' }),
    ).toBeInTheDocument();
  });
});
