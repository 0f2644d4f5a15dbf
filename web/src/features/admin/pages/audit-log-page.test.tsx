import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, type FetchMock, type MockRoute } from '@/test/fetch-mock';
import { renderApp } from '@/test/render-app';
import type { AuditEntry, AuditPage } from '../api/audit';
import { staffSession, superAdminSession } from '../test-support/admin-fixtures';

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
    ...overrides,
  };
}

const verified = { verified: true, checked: 3, brokenAt: null };

function page(entries: AuditEntry[], extra: Partial<AuditPage> = {}): AuditPage {
  return { entries, nextCursor: null, chain: verified, ...extra };
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
  it('lists the entries newest first with the chain verified', async () => {
    setup({ 'GET /api/admin/audit?limit=50': { body: page([entry(3), entry(2, { action: 'staff.create' }), entry(1, { actorType: 'system', actorName: 'retention', actorId: null })]) } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Audit Log' })).toBeInTheDocument();
    expect(await screen.findByText('Chain verified')).toHaveAttribute('data-color', 'green');
    const ids = screen.getAllByText(/^#\d+$/).map((node) => node.textContent);
    expect(ids).toEqual(['#3', '#2', '#1']);
    expect(screen.getByText('staff.create')).toBeInTheDocument();
    expect(screen.getByText('retention (system)')).toBeInTheDocument();
  });

  it('says where the chain is broken', async () => {
    setup({ 'GET /api/admin/audit?limit=50': { body: page([entry(9)], { chain: { verified: false, checked: 6, brokenAt: 7 } }) } });
    expect(await screen.findByText('Chain broken at #7')).toHaveAttribute('data-color', 'red');
  });

  it('filters by actor, action and target on the server', async () => {
    setup({
      'GET /api/admin/audit?limit=50': { body: page([entry(3)]) },
      'GET /api/admin/audit?actor=mod&action=member.delete&target=42&limit=50': { body: page([]) },
    });
    await screen.findByText('#3');
    await userEvent.type(screen.getByLabelText('Actor'), 'mod');
    await userEvent.type(screen.getByLabelText('Action'), 'member.delete');
    await userEvent.type(screen.getByLabelText('Target'), '42');
    await userEvent.click(screen.getByRole('button', { name: 'Filter' }));
    expect(await screen.findByText('No audit entries found')).toBeInTheDocument();
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
