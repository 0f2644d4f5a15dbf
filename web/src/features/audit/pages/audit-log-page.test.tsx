import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { AuditEntry, AuditPage } from '../api/audit';
import { staffSession, superAdminSession } from '@/test/admin-fixtures';

let fetchMock: FetchMock;
afterEach(() => fetchMock.restore());

function entry(id: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id,
    at: '2025-03-05T12:00:00.000Z',
    actorType: 'staff',
    actorId: '1',
    actorName: 'owner',
    action: 'member.note_add',
    targetType: 'member',
    targetId: '100000000000000001',
    details: { noteId: id, length: 12 },
    members: { '100000000000000001': { discordId: '100000000000000001', username: 'bob', avatarUrl: null } },
    targetStaffName: null,
    appealReason: null,
    ...overrides,
  };
}

const verified = { verified: true, checked: 3, brokenAt: null };

function page(entries: AuditEntry[], extra: Partial<AuditPage> = {}): AuditPage {
  return { entries, nextCursor: null, chain: verified, ...extra };
}

/** What a reader hears: the sentence without the avatars' initials (hidden from assistive technology). */
function spoken(node: HTMLElement): string {
  const copy = node.cloneNode(true) as HTMLElement;
  for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
  return copy.textContent ?? '';
}

function setup(routes: Record<string, MockRoute>, session = superAdminSession) {
  fetchMock = mockFetch({
    'GET /api/config': { body: { dataRetentionDays: 30 } },
    'GET /api/admin/session': { body: session },
    ...routes,
  });
  renderApp('/admin/audit');
}

describe('audit log page', () => {
  it('lists the entries newest first as sentences with names, the chain verified', async () => {
    setup({
      'GET /api/admin/audit?limit=50': {
        body: page([
          entry(3),
          entry(2, {
            action: 'staff.create',
            targetType: 'staff',
            targetId: '4',
            targetStaffName: 'Helper',
            details: { username: 'Helper' },
            members: {},
          }),
          entry(1, {
            actorType: 'system',
            actorName: 'Retention purge',
            actorId: 'retention',
            action: 'retention.purge',
            targetType: null,
            targetId: null,
            details: { members: 2, retentionDays: 30 },
            members: {},
          }),
        ]),
      },
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Audit Log' })).toBeInTheDocument();
    expect(await screen.findByText('Chain verified')).toHaveAttribute('data-color', 'green');
    const sentences = screen.getAllByTestId('audit-sentence').map(spoken);
    expect(sentences).toEqual([
      'owner added a note to @bob',
      'owner created the staff account Helper',
      'Retention purge deleted 2 member records and other data older than 30 days',
    ]);
    // the member links to their page; no action codes or raw details on the page
    expect(screen.getByRole('link', { name: /@bob/ })).toHaveAttribute('href', '/admin/user/100000000000000001');
    expect(screen.queryByText(/member\.note_add|staff\.create|noteId/)).not.toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'Audit entries' })).getByText('Note added')).toBeInTheDocument();
  });

  it('shows a deleted member by Discord ID, without a link, and a rejection with its reason', async () => {
    setup({
      'GET /api/admin/audit?limit=50': {
        body: page([
          entry(5, { action: 'appeal.rejected', details: { appealId: 4, reasonLength: 9 }, appealReason: 'same card' }),
          entry(4, { action: 'member.delete', targetId: '100000000000000009', members: {}, details: { via: 'dashboard' } }),
        ]),
      },
    });
    const sentences = (await screen.findAllByTestId('audit-sentence')).map(spoken);
    expect(sentences).toEqual([
      'owner rejected the appeal #4 of @bob — same card',
      'owner deleted every record of member 100000000000000009 from the dashboard',
    ]);
    expect(screen.queryByRole('link', { name: /member 100000000000000009/ })).not.toBeInTheDocument();
  });

  it('says where the chain is broken', async () => {
    setup({ 'GET /api/admin/audit?limit=50': { body: page([entry(9)], { chain: { verified: false, checked: 6, brokenAt: 7 } }) } });
    expect(await screen.findByText('Chain broken at #7')).toHaveAttribute('data-color', 'red');
  });

  it('filters by staff member, action, member and days on the server', async () => {
    setup({
      'GET /api/admin/audit?limit=50': { body: page([entry(3)]) },
      'GET /api/admin/audit?actor=mod&action=member.manual_verify&member=100000000000000001&from=2025-03-01&to=2025-03-31&limit=50': {
        body: page([]),
      },
    });
    await screen.findByText('#3');
    await userEvent.type(screen.getByLabelText('Staff member'), 'mod');
    await userEvent.click(screen.getByRole('combobox', { name: 'Action' }));
    await userEvent.click(screen.getByRole('option', { name: 'Verified by hand' }));
    await userEvent.type(screen.getByLabelText('Member'), '100000000000000001');
    await userEvent.type(screen.getByLabelText('From'), '2025-03-01');
    await userEvent.type(screen.getByLabelText('To'), '2025-03-31');
    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByText('No audit entries found')).toBeInTheDocument();
  });

  it('opens filtered by the link it came from (?member=)', async () => {
    fetchMock = mockFetch({
      'GET /api/config': { body: { dataRetentionDays: 30 } },
      'GET /api/admin/session': { body: superAdminSession },
      'GET /api/admin/audit?member=100000000000000001&limit=50': { body: page([entry(3)]) },
    });
    renderApp('/admin/audit?member=100000000000000001');
    expect(await screen.findByText('#3')).toBeInTheDocument();
    expect(screen.getByLabelText('Member')).toHaveValue('100000000000000001');
  });

  it('loads older entries with the cursor', async () => {
    setup({
      'GET /api/admin/audit?limit=50': { body: page([entry(3)], { nextCursor: 3 }) },
      'GET /api/admin/audit?limit=50&before=3': { body: page([entry(2)]) },
    });
    await screen.findByText('#3');
    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByText('#2')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
  });

  it('is for super admins only', async () => {
    setup({}, staffSession);
    expect(await screen.findByText('Only super admins can read the audit log.')).toBeInTheDocument();
    expect(fetchMock.calls.filter((call) => call.path.startsWith('/api/admin/audit'))).toHaveLength(0);
  });

  it('sends a 401 to /admin/login', async () => {
    setup({ 'GET /api/admin/session': { status: 401, body: { error: 'Authentication required' } } });
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/admin/login'));
  });
});
