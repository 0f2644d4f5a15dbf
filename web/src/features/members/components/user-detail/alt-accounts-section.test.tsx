import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { AltEntry } from '../../api/members';
import { buildDetail, listPage, staffSession, usersUrl } from '@/test/admin-fixtures';
import { describeAltLink, describeDismissal, DISMISSED_LABEL } from './alt-link-item';
import { describeDeviceProfileShared } from './alt-accounts-section';

describe('describeDeviceProfileShared', () => {
  it.each([
    [{ others: 214, networks: 37, atLeast: false }, 'This device profile is shared by 214 other members on 37 networks.'],
    [{ others: 63, networks: 20, atLeast: true }, 'This device profile is shared by at least 63 other members on 20 networks.'],
    [{ others: 1, networks: 1, atLeast: false }, 'This device profile is shared by 1 other member.'],
    [{ others: 0, networks: 0, atLeast: false }, 'No other member shows this device profile.'],
  ])('%j → %s', (shared, text) => {
    expect(describeDeviceProfileShared(shared)).toBe(text);
  });
});

// ---- the alt list on the detail page: readable without hover, "Not the same person", Reopen ----

const ID = '100000000000000001';
const DETAIL = `/api/admin/users/${ID}`;
const BOB: AltEntry = {
  linkId: 11,
  discordId: '200000000000000001',
  username: 'bob',
  avatarUrl: null,
  confidence: 'certain',
  detectionMethod: 'both',
  fingerprintComponents: { canvas: true },
  otherIs: 'alt',
  evidence: { browserTokenMatch: true },
  dismissed: null,
};
const CAROL: AltEntry = {
  linkId: 12,
  discordId: '200000000000000002',
  username: 'carol',
  avatarUrl: null,
  confidence: 'medium',
  detectionMethod: 'fingerprint',
  fingerprintComponents: {},
  otherIs: 'main',
  evidence: {},
  dismissed: { at: '2026-03-01T12:00:00.000Z', byName: 'Mod', reason: 'sisters' },
};

let fetchMock: FetchMock;
afterEach(() => fetchMock?.restore());

function setup(routes: Record<string, MockRoute> = {}) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: staffSession },
    [`GET ${DETAIL}`]: { body: buildDetail({ discordId: ID, username: 'alice', altsFound: 1, alts: [BOB, CAROL] }) },
    [`GET ${usersUrl()}`]: { body: listPage([]) },
    ...routes,
  });
  renderApp(`/admin/user/${ID}`);
}

describe('describeAltLink and describeDismissal', () => {
  it('says confidence and method, and who dismissed when and why', () => {
    expect(describeAltLink(BOB)).toBe('Certain · IP address and device fingerprint');
    expect(describeAltLink({ confidence: 'possible', detectionMethod: 'ip' })).toBe('Possible · IP address');
    expect(describeDismissal(CAROL.dismissed!)).toMatch(/^By Mod on .+ · “sisters”$/);
    expect(describeDismissal({ at: '2026-03-01T12:00:00.000Z', byName: null, reason: null })).toMatch(/^On \S/);
  });
});

describe('the alt list', () => {
  it('shows each alt with its username and method beside the avatar, and a dismissed link greyed with Reopen', async () => {
    setup();
    const certain = await screen.findByRole('region', { name: 'Certain Alts' });
    // readable without hovering: the words are on the page, not only in the tooltip
    expect(within(certain).getByRole('link', { name: 'bob' })).toHaveAttribute('href', `/admin/user/${BOB.discordId}`);
    expect(within(certain).getByText('bob', { selector: 'a' })).toBeInTheDocument();
    expect(within(certain).getByText('Certain · IP address and device fingerprint')).toBeInTheDocument();
    expect(within(certain).getByText('Newer account (alt)')).toBeInTheDocument();
    expect(within(certain).getByRole('button', { name: 'Not the same person: bob' })).toBeInTheDocument();
    expect(within(certain).queryByText(DISMISSED_LABEL)).not.toBeInTheDocument();

    // the dismissed link is not under its confidence group, but listed apart with its evidence
    expect(screen.queryByRole('region', { name: 'Medium-Confidence Alts' })).not.toBeInTheDocument();
    const dismissed = screen.getByRole('region', { name: 'Dismissed links' });
    expect(within(dismissed).getByText(DISMISSED_LABEL)).toBeInTheDocument();
    expect(within(dismissed).getByText('Medium confidence · Device fingerprint')).toBeInTheDocument();
    expect(within(dismissed).getByText(/By Mod on .+ · “sisters”/)).toBeInTheDocument();
    expect(within(dismissed).getByRole('button', { name: 'Reopen the link to carol' })).toBeInTheDocument();
    expect(within(dismissed).queryByRole('button', { name: /Not the same person/ })).not.toBeInTheDocument();
  });

  it('"Not the same person" asks first; cancelling sends nothing, confirming sends the reason and refreshes the page', async () => {
    setup({ [`POST ${DETAIL}/alt-links/11/dismiss`]: { body: { success: true } } });
    await userEvent.click(await screen.findByRole('button', { name: 'Not the same person: bob' }));
    let dialog = await screen.findByRole('alertdialog');
    expect(within(dialog).getByText(/bob and this member will no longer be linked/)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(fetchMock.callsTo('POST', `${DETAIL}/alt-links/11/dismiss`)).toHaveLength(0);

    const detailLoads = fetchMock.callsTo('GET', DETAIL).length;
    await userEvent.click(screen.getByRole('button', { name: 'Not the same person: bob' }));
    dialog = await screen.findByRole('alertdialog');
    await userEvent.type(within(dialog).getByLabelText('Reason (optional)'), 'brothers');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Not the same person' }));
    expect(await screen.findByText('bob no longer counts as an alt of this member.')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', `${DETAIL}/alt-links/11/dismiss`)[0]?.body).toEqual({ reason: 'brothers' });
    await waitFor(() => expect(fetchMock.callsTo('GET', DETAIL).length).toBeGreaterThan(detailLoads));
  });

  it("reopens a dismissed link, and shows the server's words when it refuses", async () => {
    setup({ [`POST ${DETAIL}/alt-links/12/reopen`]: { status: 409, body: { error: 'This link is not dismissed', code: 'conflict' } } });
    await userEvent.click(await screen.findByRole('button', { name: 'Reopen the link to carol' }));
    expect(await screen.findByText('This link is not dismissed')).toBeInTheDocument();
    expect(fetchMock.callsTo('POST', `${DETAIL}/alt-links/12/reopen`)).toHaveLength(1);
  });
});
