import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { heldRoute, mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { UserDetail } from '../api/members';
import { buildDetail, listPage, staffSession, superAdminSession, usersUrl } from '@/test/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => {
  fetchMock.restore();
  jest.restoreAllMocks();
});

const ID = '100000000000000001';
const DETAIL = `/api/admin/users/${ID}`;

const withAlts = buildDetail({
  username: 'alice',
  altsFound: 3,
  vpnAttempts: 2,
  serversVerifiedIn: 1,
  alts: [
    {
      linkId: 1,
      discordId: '200000000000000001',
      username: 'bob',
      avatarUrl: null,
      confidence: 'certain',
      detectionMethod: 'both',
      fingerprintComponents: { canvas: true, webgl: true, audio: false, fonts: true },
      otherIs: 'alt',
      evidence: { browserTokenMatch: true, fingerprintMatch: true, fingerprintShared: 0 },
      dismissed: null,
    },
    {
      linkId: 2,
      discordId: '200000000000000002',
      username: 'carol',
      avatarUrl: null,
      confidence: 'medium',
      detectionMethod: 'fingerprint',
      fingerprintComponents: {},
      otherIs: 'alt',
      evidence: {},
      dismissed: null,
    },
    {
      linkId: 3,
      discordId: '200000000000000003',
      username: 'dan',
      avatarUrl: null,
      confidence: 'possible',
      detectionMethod: 'fingerprint',
      fingerprintComponents: {},
      otherIs: 'main',
      evidence: { fingerprintMatch: true, fingerprintShared: 214, fingerprintNetworks: 180 },
      dismissed: null,
    },
  ],
});

function setup(detail: MockRoute, routes: Record<string, MockRoute> = {}, session = staffSession) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: session },
    [`GET ${DETAIL}`]: detail,
    [`GET ${usersUrl()}`]: { body: listPage([]) },
    ...routes,
  });
  renderApp(`/admin/user/${ID}`);
}

async function openSection(name: string) {
  await userEvent.click(await screen.findByRole('button', { name }));
}

describe('user detail page', () => {
  it('shows the title, identity, counters and fingerprint', async () => {
    setup({ body: withAlts });
    expect(await screen.findByRole('heading', { level: 1, name: 'Gatekeeper' })).toBeInTheDocument();
    expect(screen.getByText('User verification and alt analysis')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Dashboard' })).toHaveAttribute('href', '/admin');
    expect(await screen.findByRole('heading', { name: 'Discord Account & Identity' })).toBeInTheDocument();
    expect(screen.getByText(ID)).toBeInTheDocument();
    expect(screen.getByText('Offline')).toBeInTheDocument();
    expect(screen.getByText('No badges')).toBeInTheDocument();
    expect(screen.getByText('Account created').nextElementSibling?.querySelector('time')).toHaveAttribute(
      'dateTime',
      withAlts.creationDate,
    );

    const counter = (label: string) => screen.getByText(label).parentElement?.querySelector('dd')?.textContent;
    expect(screen.getByRole('heading', { name: 'Double Counter Data' })).toBeInTheDocument();
    expect(counter('Alt Accounts Found')).toBe('3');
    expect(counter('VPN Attempts Blocked')).toBe('2');
    expect(counter('Servers verified in')).toBe('1');
    expect(screen.getByRole('heading', { name: 'Double Counter Fingerprint' })).toBeInTheDocument();
    expect(screen.getByText('0123456789abcdef0123456789abcdef')).toBeInTheDocument();
  });

  it('opens with the standing: the card’s badges and the reason before the identity', async () => {
    setup({ body: buildDetail({ isLinkedAsAlt: true, verificationCount: 2, standingReason: 'Same address as @main' }) });
    const standing = await screen.findByTestId('standing');
    expect(
      within(standing)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Certain Alt', '2x']);
    expect(within(standing).getByText('Same address as @main')).toBeInTheDocument();
    const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings.indexOf('Standing')).toBeLessThan(headings.indexOf('Discord Account & Identity'));
  });

  it('says when the member is on a network marked as shared', async () => {
    setup({ body: buildDetail({ sharedNetwork: { marked: true, label: 'Campus Wi-Fi' } }) });
    expect(await screen.findByText(/Shared network \(Campus Wi-Fi\)/)).toBeInTheDocument();
  });

  it("shows 'Unverified' when the rules are not confirmed, and no alt section without alts", async () => {
    setup({ body: buildDetail({ rulesConfirmed: false, altsFound: 0 }) });
    const identity = (await screen.findByRole('heading', { name: 'Discord Account & Identity' })).closest('div.rounded-xl') as HTMLElement;
    expect(within(identity).getByText('Unverified')).toBeInTheDocument();
    expect(screen.queryByText('Offline')).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Identified Alternate Accounts' })).not.toBeInTheDocument();
  });

  it("shows 'Loading...' and then 'User not found'", async () => {
    const { route, answer } = heldRoute();
    setup(route);
    expect(await screen.findByText('Loading...')).toBeInTheDocument();
    act(() => answer({ status: 404, body: { error: 'User not found', code: 'not_found' } }));
    expect(await screen.findByText('User not found')).toBeInTheDocument();
  });

  it('sends a 401 to /admin/login', async () => {
    setup({ status: 401, body: { error: 'Authentication required', code: 'unauthorized' } });
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/admin/login'));
  });

  it('groups the alts, with a tooltip on focus and an evidence panel per certain alt', async () => {
    setup({ body: withAlts });
    expect(await screen.findByRole('heading', { name: 'Identified Alternate Accounts' })).toBeInTheDocument();
    for (const [group, username] of [
      ['Certain Alts', 'bob'],
      ['Medium-Confidence Alts', 'carol'],
    ] as const) {
      const section = screen.getByRole('region', { name: group });
      expect(within(section).getByRole('heading', { name: group })).toBeInTheDocument();
      expect(within(section).getByRole('link', { name: username })).toHaveAttribute(
        'href',
        expect.stringContaining('/admin/user/2000000000000000'),
      );
    }
    expect(screen.getByText('Why: same browser; same device model, shown by no other member (certain)')).toBeInTheDocument();

    act(() => screen.getByRole('link', { name: 'bob' }).focus());
    const tooltip = await screen.findByRole('tooltip');
    expect(tooltip).toHaveTextContent('bob');
    expect(tooltip).toHaveTextContent('200000000000000001');
    expect(tooltip).toHaveTextContent('Detected by: IP address and device fingerprint');

    expect(screen.queryByRole('button', { name: 'Evidence - carol' })).not.toBeInTheDocument();
    await openSection('Evidence - bob');
    const verdict = (label: string) => screen.getByText(label, { selector: 'dt' }).nextElementSibling?.textContent;
    expect(verdict('Canvas')).toBe('Matched');
    expect(verdict('Audio')).toBe('Different');
    expect(verdict('Screen')).toBe('Unavailable');
    expect(screen.getByText(/3 of 8 fingerprint components matched/)).toBeInTheDocument();
  });

  it('lists a possible link as shared evidence under a neutral heading, never as an alt', async () => {
    setup({ body: withAlts });
    const weak = await screen.findByRole('list', { name: 'Shares a device profile or network with' });
    expect(screen.getByRole('heading', { name: 'Shares a device profile or network with' })).toBeInTheDocument();
    expect(within(weak).getByRole('link', { name: 'dan' })).toHaveAttribute('href', '/admin/user/200000000000000003');
    expect(within(weak).getByText('same device model as 214 other members on 180 networks (weak, not counted)')).toBeInTheDocument();
    // no alt wording, no count, no dismiss button on weak evidence
    expect(within(weak).queryByText(/alt|possible/i)).not.toBeInTheDocument();
    expect(within(weak).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: /Possible/ })).not.toBeInTheDocument();
    // dan is named once on the page: in the shared evidence, not among the alts
    expect(screen.getAllByRole('link', { name: 'dan' })).toHaveLength(1);
  });

  it('shows only the neutral section when a member has nothing but weak evidence', async () => {
    setup({ body: { ...withAlts, altsFound: 0, isLinkedAsAlt: false, alts: withAlts.alts.filter((a) => a.confidence === 'possible') } });
    expect(await screen.findByRole('heading', { name: 'Shares a device profile or network with' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Identified Alternate Accounts' })).not.toBeInTheDocument();
  });

  it('opens Admin Notes by default with the first note, and saves a note', async () => {
    let note = 'first note';
    setup(
      () => ({
        body: buildDetail({
          adminNotes: [{ id: note === 'first note' ? 1 : 2, note, authorName: 'mod', createdAt: '2025-03-06T10:00:00.000Z' }],
        }),
      }),
      {
        [`POST ${DETAIL}/notes`]: (request) => {
          note = (request.body as { note: string }).note;
          return { status: 201, body: { success: true } };
        },
      },
    );
    const textarea = await screen.findByRole('textbox', { name: 'Internal note (visible to staff only)' });
    expect(textarea).toHaveValue('first note');
    expect(textarea.className).toContain('min-h-[100px]');
    expect(screen.getByRole('button', { name: 'Admin Notes' })).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('button', { name: 'Verification Evidence' })).toHaveAttribute('aria-expanded', 'false');

    await userEvent.clear(textarea);
    await userEvent.type(textarea, 'watch this one');
    await userEvent.click(screen.getByRole('button', { name: 'Save Note' }));
    expect(await screen.findByText('Admin note has been updated successfully.')).toBeInTheDocument();
    expect(screen.getByText('Note saved')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', `${DETAIL}/notes`)[0]?.body).toEqual({ note: 'watch this one' });
    await waitFor(() =>
      expect(screen.getByRole('textbox', { name: 'Internal note (visible to staff only)' })).toHaveValue('watch this one'),
    );
  });

  it("toasts 'Failed to save admin note.' when saving fails", async () => {
    setup({ body: buildDetail() }, { [`POST ${DETAIL}/notes`]: { status: 500, body: { error: 'Database down' } } });
    await userEvent.type(await screen.findByRole('textbox', { name: 'Internal note (visible to staff only)' }), 'x');
    await userEvent.click(screen.getByRole('button', { name: 'Save Note' }));
    expect(await screen.findByText('Failed to save admin note.')).toBeInTheDocument();
    expect(screen.getByText('Error')).toBeInTheDocument();
  });

  it.each([
    ['Certain Alt', 'certain_alt'],
    ['No Override', null],
  ])('sets the manual alt status to %s', async (label, value) => {
    setup({ body: buildDetail({ manualAltStatus: 'suspected_alt' }) }, { [`PATCH ${DETAIL}/alt-status`]: { body: { success: true } } });
    await openSection('Manual Alt Status Override');
    const select = screen.getByRole('combobox', { name: 'Manual alt status' });
    expect(select).toHaveTextContent('Suspected Alt');
    await userEvent.click(select);
    await userEvent.click(await screen.findByRole('option', { name: label }));
    await userEvent.click(screen.getByRole('button', { name: 'Save Alt Status' }));
    expect(await screen.findByText('Manual alt status has been changed successfully.')).toBeInTheDocument();
    expect(screen.getByText('Alt status updated')).toBeInTheDocument();
    expect(fetchMock.callsTo('PATCH', `${DETAIL}/alt-status`)[0]?.body).toEqual({ manualAltStatus: value });
  });

  it("toasts 'Failed to update alt status.' when the override fails", async () => {
    setup({ body: buildDetail() }, { [`PATCH ${DETAIL}/alt-status`]: { status: 500, body: '' } });
    await openSection('Manual Alt Status Override');
    await userEvent.click(screen.getByRole('button', { name: 'Save Alt Status' }));
    expect(await screen.findByText('Failed to update alt status.')).toBeInTheDocument();
    expect(screen.getByText('Error')).toBeInTheDocument();
  });

  it('verifies manually, after which the button reads Already Verified', async () => {
    let status: UserDetail['verificationStatus'] = 'pending';
    setup(() => ({ body: buildDetail({ verificationStatus: status }) }), {
      [`POST ${DETAIL}/manual-verify`]: () => {
        status = 'verified';
        return { body: { success: true } };
      },
    });
    await openSection('Manual Verification');
    await userEvent.click(screen.getByRole('button', { name: 'Manually Verify User' }));
    expect(await screen.findByText('User has been manually verified and granted server access.')).toBeInTheDocument();
    expect(screen.getByText('Manual verification successful')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', `${DETAIL}/manual-verify`)[0]?.init?.body).toBeUndefined();
    expect(await screen.findByRole('button', { name: 'Already Verified' })).toBeDisabled();
  });

  it("shows the server's message when manual verification fails", async () => {
    setup(
      { body: buildDetail() },
      { [`POST ${DETAIL}/manual-verify`]: { status: 409, body: { error: 'User is already verified', code: 'conflict' } } },
    );
    await openSection('Manual Verification');
    await userEvent.click(screen.getByRole('button', { name: 'Manually Verify User' }));
    expect(await screen.findByText('User is already verified')).toBeInTheDocument();
    expect(screen.getByText('Error')).toBeInTheDocument();
  });

  it("falls back to 'Failed to manually verify user.'", async () => {
    setup({ body: buildDetail() }, { [`POST ${DETAIL}/manual-verify`]: { networkError: true } });
    await openSection('Manual Verification');
    await userEvent.click(screen.getByRole('button', { name: 'Manually Verify User' }));
    expect(await screen.findByText('Failed to manually verify user.')).toBeInTheDocument();
  });

  it('lists the verification attempts as evidence', async () => {
    setup({
      body: buildDetail({
        evidence: [
          {
            at: '2025-03-05T12:00:00.000Z',
            outcome: 'limited_access',
            vpnVerdict: 'vpn',
            vpnProvider: 'NordVPN',
            vpnSource: 'proxycheck',
            vpnCheckFailed: false,
            timezoneMismatch: true,
            ipRecorded: true,
            networkRecorded: true,
            fingerprintRecorded: false,
          },
        ],
      }),
    });
    await openSection('Verification Evidence');
    const attempts = screen.getByRole('list', { name: 'Verification attempts' });
    expect(within(attempts).getByText('Limited Access')).toBeInTheDocument();
    expect(within(attempts).getByText(/VPN · NordVPN/)).toHaveTextContent('timezone does not match IP country');
    expect(within(attempts).getByText('IP hash, network hash')).toBeInTheDocument();
  });

  it('hides Delete User from regular staff', async () => {
    setup({ body: buildDetail() });
    await screen.findByRole('button', { name: 'Admin Notes' });
    expect(screen.queryByRole('button', { name: 'Delete User' })).not.toBeInTheDocument();
  });

  it('lets a super admin delete after the browser confirmation, then goes to /admin', async () => {
    const confirm = jest.spyOn(window, 'confirm').mockReturnValue(true);
    setup({ body: buildDetail({ username: 'alice' }) }, { [`DELETE ${DETAIL}`]: { body: { success: true } } }, superAdminSession);
    await openSection('Delete User');
    await userEvent.click(within(screen.getByRole('region', { name: 'Delete User' })).getByRole('button', { name: 'Delete User' }));
    expect(confirm).toHaveBeenCalledWith(
      'Are you sure you want to permanently delete all records for alice? This action cannot be undone.',
    );
    expect(await screen.findByText('All verification records for this user have been permanently deleted.')).toBeInTheDocument();
    expect(screen.getByText('User deleted')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/admin$/));
    expect(fetchMock.callsTo('DELETE', DETAIL)).toHaveLength(1);
  });

  it('does nothing when the confirmation is declined', async () => {
    jest.spyOn(window, 'confirm').mockReturnValue(false);
    setup({ body: buildDetail() }, { [`DELETE ${DETAIL}`]: { body: { success: true } } }, superAdminSession);
    await openSection('Delete User');
    await userEvent.click(within(screen.getByRole('region', { name: 'Delete User' })).getByRole('button', { name: 'Delete User' }));
    expect(fetchMock.callsTo('DELETE', DETAIL)).toHaveLength(0);
    expect(screen.getByTestId('location')).toHaveTextContent(`/admin/user/${ID}`);
  });

  it.each([
    [{ status: 403, body: { error: 'Super admin access required', code: 'forbidden' } }, 'Super admin access required'],
    [{ status: 500, body: '' }, 'Failed to delete user.'],
  ])('toasts the failure of a delete', async (reply, message) => {
    jest.spyOn(window, 'confirm').mockReturnValue(true);
    setup({ body: buildDetail() }, { [`DELETE ${DETAIL}`]: reply }, superAdminSession);
    await openSection('Delete User');
    await userEvent.click(within(screen.getByRole('region', { name: 'Delete User' })).getByRole('button', { name: 'Delete User' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(screen.getByText('Error')).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(`/admin/user/${ID}`);
  });
});
