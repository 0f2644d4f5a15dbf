import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockReply, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { UserDetail } from '../../api/members';
import { buildDetail, listPage, staffSession, usersUrl } from '@/test/admin-fixtures';
import { noNetworkReason } from './shared-network-control';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

const ID = '100000000000000001';
const DETAIL = `/api/admin/users/${ID}`;
const SHARED = `${DETAIL}/shared-network`;

const withNetwork = (overrides: Partial<UserDetail> = {}) =>
  buildDetail({
    evidence: [
      {
        at: '2025-03-05T12:00:00.000Z',
        outcome: 'verified',
        vpnVerdict: 'clean',
        vpnProvider: null,
        vpnSource: null,
        vpnCheckFailed: false,
        timezoneMismatch: false,
        ipRecorded: true,
        networkRecorded: true,
        fingerprintRecorded: true,
      },
    ],
    sharedNetwork: { marked: false, label: null },
    ...overrides,
  });

function setup(detail: MockRoute, routes: Record<string, MockRoute> = {}) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: staffSession },
    [`GET ${DETAIL}`]: detail,
    [`GET ${usersUrl()}`]: { body: listPage([]) },
    'GET /api/admin/shared-networks': { body: [] },
    ...routes,
  });
  renderApp(`/admin/user/${ID}`);
}

/** Opens the Admin Management 'Shared Network' section and returns it. */
async function openSharedNetwork(): Promise<HTMLElement> {
  const trigger = await screen.findByRole('button', { name: 'Shared Network' });
  expect(trigger).toHaveAttribute('aria-expanded', 'false');
  await userEvent.click(trigger);
  return screen.getByRole('region', { name: 'Shared Network' });
}

describe('detail page: Shared Network', () => {
  it('marks the member’s network as shared with a label, then offers to unmark it', async () => {
    let shared = { marked: false, label: null as string | null };
    let answer: (reply: MockReply) => void = () => undefined;
    setup(() => ({ body: withNetwork({ sharedNetwork: shared }) }), {
      [`POST ${SHARED}`]: (request) =>
        new Promise<MockReply>((resolve) => {
          answer = (reply) => {
            shared = { marked: true, label: (request.body as { label?: string }).label ?? null };
            resolve(reply);
          };
        }),
    });
    const section = await openSharedNetwork();
    expect(within(section).getByText(/IP-only and same-network matches there no\s+longer count as alt evidence/)).toBeInTheDocument();
    const label = within(section).getByRole('textbox', { name: 'Label (optional)' });
    expect(label).toHaveAttribute('maxLength', '100');
    await userEvent.type(label, '  Smith household ');
    await userEvent.click(within(section).getByRole('button', { name: 'Mark as Shared Network' }));

    // loading state while the server answers
    const marking = await within(section).findByRole('button', { name: 'Marking...' });
    expect(marking).toBeDisabled();
    expect(marking).toHaveAttribute('aria-busy', 'true');
    act(() => answer({ body: { success: true, sharedNetwork: { marked: true, label: 'Smith household' }, members: 2 } }));

    expect(
      await screen.findByText('IP and network matches from this network no longer count as alt evidence (2 member records on it).'),
    ).toBeInTheDocument();
    expect(screen.getByText('Network marked as shared')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', SHARED)[0]?.body).toEqual({ label: 'Smith household' });
    // the detail is refetched: the section now shows the marking and the unmark action
    expect(
      await within(screen.getByRole('region', { name: 'Shared Network' })).findByRole('button', { name: 'Unmark Shared Network' }),
    ).toBeEnabled();
    expect(within(screen.getByRole('region', { name: 'Shared Network' })).getByText('Smith household')).toBeInTheDocument();
    expect(screen.getByText(/Shared network \(Smith household\)/)).toBeInTheDocument(); // the counters card says so too
  });

  it('marks without a label by sending no label, using the keyboard only', async () => {
    setup(
      { body: withNetwork() },
      { [`POST ${SHARED}`]: { body: { success: true, sharedNetwork: { marked: true, label: null }, members: 1 } } },
    );
    const trigger = await screen.findByRole('button', { name: 'Shared Network' });
    act(() => trigger.focus());
    await userEvent.keyboard('{Enter}');
    const section = screen.getByRole('region', { name: 'Shared Network' });
    await userEvent.tab();
    expect(within(section).getByRole('textbox', { name: 'Label (optional)' })).toHaveFocus();
    await userEvent.keyboard('{Enter}'); // submits the form
    expect(
      await screen.findByText('IP and network matches from this network no longer count as alt evidence (1 member record on it).'),
    ).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', SHARED)[0]?.body).toEqual({});
  });

  it('unmarks a shared network', async () => {
    let shared = { marked: true, label: 'Campus Wi-Fi' as string | null };
    setup(() => ({ body: withNetwork({ sharedNetwork: shared }) }), {
      [`DELETE ${SHARED}`]: () => {
        shared = { marked: false, label: null };
        return { body: { success: true, sharedNetwork: shared, members: 3 } };
      },
    });
    const section = await openSharedNetwork();
    expect(within(section).getByText('Shared network')).toBeInTheDocument();
    expect(within(section).getByText('Campus Wi-Fi')).toBeInTheDocument();
    await userEvent.click(within(section).getByRole('button', { name: 'Unmark Shared Network' }));
    expect(await screen.findByText('IP and network matches from this network count as alt evidence again.')).toBeInTheDocument();
    expect(screen.getByText('Shared network unmarked')).toBeInTheDocument();
    expect(fetchMock.callsTo('DELETE', SHARED)).toHaveLength(1);
    expect(
      await within(screen.getByRole('region', { name: 'Shared Network' })).findByRole('button', { name: 'Mark as Shared Network' }),
    ).toBeEnabled();
  });

  it('is disabled, with the reason, for a Limited Access record', async () => {
    setup({ body: buildDetail({ status: 'limited_access', usedVpn: true, sharedNetwork: { marked: false, label: null } }) });
    const section = await openSharedNetwork();
    const button = within(section).getByRole('button', { name: 'Mark as Shared Network' });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription(
      'Limited Access records keep no network (only the Discord ID and username), so there is no network to mark.',
    );
    expect(within(section).getByRole('textbox', { name: 'Label (optional)' })).toBeDisabled();
    await userEvent.click(button);
    expect(fetchMock.callsTo('POST', SHARED)).toHaveLength(0);
  });

  it("shows the server's message when the member has no network on record", async () => {
    setup(
      { body: withNetwork() },
      {
        [`POST ${SHARED}`]: {
          status: 409,
          body: { error: 'This member has no network on record (Limited Access records keep none)', code: 'conflict' },
        },
      },
    );
    const section = await openSharedNetwork();
    await userEvent.click(within(section).getByRole('button', { name: 'Mark as Shared Network' }));
    expect(await screen.findByText('This member has no network on record (Limited Access records keep none)')).toBeInTheDocument();
    expect(screen.getByText('Error')).toBeInTheDocument();
    expect(within(section).getByRole('button', { name: 'Mark as Shared Network' })).toBeEnabled();
  });

  it.each([
    ['POST', { marked: false, label: null }, 'Mark as Shared Network', 'Failed to mark the network as shared.'],
    ['DELETE', { marked: true, label: null }, 'Unmark Shared Network', 'Failed to unmark the shared network.'],
  ] as const)('falls back to a plain message when %s fails without one', async (method, sharedNetwork, button, message) => {
    setup({ body: withNetwork({ sharedNetwork }) }, { [`${method} ${SHARED}`]: { networkError: true } });
    const section = await openSharedNetwork();
    await userEvent.click(within(section).getByRole('button', { name: button }));
    expect(await screen.findByText(message)).toBeInTheDocument();
  });

  it('sends a 401 to /admin/login', async () => {
    setup(
      { body: withNetwork() },
      { [`POST ${SHARED}`]: { status: 401, body: { error: 'Authentication required', code: 'unauthorized' } } },
    );
    const section = await openSharedNetwork();
    await userEvent.click(within(section).getByRole('button', { name: 'Mark as Shared Network' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/admin/login'));
  });
});

describe('noNetworkReason', () => {
  const attempt = withNetwork().evidence[0]!;
  it.each([
    [{ status: 'limited_access', source: 'web', evidence: [attempt] }, /Limited Access records keep no network/],
    [{ status: 'verified', source: 'manual', evidence: [] }, /created manually/],
    [{ status: 'verified', source: 'manual', evidence: [attempt] }, undefined],
    [{ status: 'verified', source: 'web', evidence: [] }, undefined],
  ] as const)('%j → %s', (user, expected) => {
    const reason = noNetworkReason({ ...user, evidence: [...user.evidence] });
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(expected);
  });
});
