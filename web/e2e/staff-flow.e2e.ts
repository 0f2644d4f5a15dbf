/**
 * The staff screens, end to end, in Chromium against the whole product in sandbox
 * mode. The members the staff work on are made by the visitor flow over HTTP
 * (`walkVisitorFlow`: consent, Discord sign-in on the emulator, rules), which is faster than
 * clicking through it again (visitor-flow.e2e.ts does that).
 *
 * The tests run in order on one signed-in page: setup → login → dashboard → detail → …
 * → logout. A failing step makes the later ones fail too; read the first failure.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { buildFingerprint, walkVisitorFlow } from '../../src/test-support/gatekeeper';
import { eventually, heading, hidden, screenshot, SETUP_CODE, toast, useE2E, visible } from './harness';

jest.setTimeout(60_000);

const OWNER = { username: 'e2e-owner', password: 'owner-password-1' };
const MODERATOR = { username: 'e2e-moderator', password: 'moderator-pass-1', newPassword: 'moderator-pass-2' };

/** Accepts the next browser confirm() and returns its message. */
function acceptNextDialog(page: Page): Promise<string> {
  return new Promise((resolve) => {
    page.once('dialog', (dialog) => {
      const message = dialog.message();
      void dialog.accept().then(() => resolve(message));
    });
  });
}

describe('staff flow (Chromium, sandbox mode)', () => {
  const e2e = useE2E({ TRUST_PROXY: 'loopback' });
  const people = { member: '', main: '', alt: '', manual: '' };
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const { handle, emulator } = e2e();
    // a member made by the visitor flow, and a pair from one device on one address (certain alt)
    const member = emulator.createUser({ username: 'e2e-member' });
    await walkVisitorFlow(handle, {
      userId: member.id,
      confirmRules: true,
      forwardedFor: '192.0.2.101',
      fingerprint: buildFingerprint('e2e-member-phone'),
    });
    const main = emulator.createUser({ username: 'e2e-main-account' });
    const alt = emulator.createUser({ username: 'e2e-alt-account' });
    const laptop = buildFingerprint('e2e-shared-laptop');
    await walkVisitorFlow(handle, { userId: main.id, confirmRules: true, forwardedFor: '81.2.69.142', fingerprint: laptop });
    await walkVisitorFlow(handle, { userId: alt.id, confirmRules: true, forwardedFor: '81.2.69.142', fingerprint: laptop });
    await e2e().drainOutbox();
    // someone on Discord with no record yet, for the manual entry
    const manual = emulator.createUser({ username: 'e2e-manual-user' });
    Object.assign(people, { member: member.id, main: main.id, alt: alt.id, manual: manual.id });

    context = await e2e().newContext();
    page = await context.newPage();
  }, 60_000);

  const url = (path: string) => `${e2e().url}${path}`;
  const memberCard = (username: string) =>
    page.getByRole('listitem').filter({ has: page.getByRole('link', { name: new RegExp(username) }) });

  it('sets up the owner account with the setup code', async () => {
    const test = 'staff-01-setup';
    await page.goto(url('/setup'));
    await heading(page, 'Admin Setup');
    await screenshot(page, test, 'form');
    await page.getByLabel('Setup code').fill(SETUP_CODE);
    await page.getByLabel('Username').fill(OWNER.username);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByRole('button', { name: 'Create Admin Account' }).click();

    await visible(page.getByText('Setup complete', { exact: true }));
    await visible(page.getByText(OWNER.username, { exact: true }));
    await screenshot(page, test, 'success');
    await page.getByRole('button', { name: 'Go to Login' }).click();
    await page.waitForURL(url('/admin/login'));
  });

  it('signs in at /admin/login and sees the dashboard with the visitor-made members', async () => {
    const test = 'staff-02-login';
    await heading(page, 'Staff Login');
    // both fields required
    await page.getByRole('button', { name: 'Sign In' }).click();
    await visible(page.getByText('Username is required', { exact: true }));
    await visible(page.getByText('Password is required', { exact: true }));
    await page.getByLabel('Username').fill(OWNER.username);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await visible(page.getByRole('alert').getByText('Invalid credentials', { exact: true }));
    await screenshot(page, test, 'invalid-credentials');
    await page.getByLabel('Password').fill(OWNER.password);
    await screenshot(page, test, 'form');
    await page.getByRole('button', { name: 'Sign In' }).click();

    await page.waitForURL(url('/admin'));
    await heading(page, 'Admin Dashboard');
    await visible(page.getByText('Manage verified users and alt accounts', { exact: true }));
    await visible(page.getByText(`Signed in as ${OWNER.username}`));
    await visible(page.getByRole('heading', { name: 'All Users (3)' }));
    for (const name of ['e2e-member', 'e2e-main-account', 'e2e-alt-account']) await visible(memberCard(name));
    // badge precedence: the alt is a red 'Certain Alt', the main account found one alt
    await visible(memberCard('e2e-alt-account').getByText('Certain Alt', { exact: true }));
    await visible(memberCard('e2e-main-account').getByText('1 Alt', { exact: true }));
    await visible(memberCard('e2e-member').getByText('Verified', { exact: true }));
    for (const link of ['Manual Entry', 'Create Staff', 'Staff Management', 'Audit Log'])
      await visible(page.getByRole('link', { name: link }));
    await screenshot(page, test, 'dashboard');
  });

  it('filters certain alts and searches for a member', async () => {
    const test = 'staff-03-dashboard';
    await page.getByRole('combobox', { name: 'Filter users' }).click();
    await page.getByRole('option', { name: 'Certain Alts Only' }).click();
    await visible(page.getByRole('heading', { name: 'Certain Alts (1)' }));
    await visible(memberCard('e2e-alt-account'));
    expect(await memberCard('e2e-member').count()).toBe(0);
    await screenshot(page, test, 'certain-alts');
    await page.getByRole('combobox', { name: 'Filter users' }).click();
    await page.getByRole('option', { name: 'All Users' }).click();
    await visible(page.getByRole('heading', { name: 'All Users (3)' }));

    await page.getByPlaceholder('Search by username or Discord ID...').fill('E2E-MEM');
    await visible(page.getByRole('heading', { name: 'All Users (1)' }));
    await visible(memberCard('e2e-member'));
    expect(await memberCard('e2e-main-account').count()).toBe(0);
    await screenshot(page, test, 'search');
    await page.getByPlaceholder('Search by username or Discord ID...').fill('no-such-member');
    await visible(page.getByText('No users found', { exact: true }));
    await page.getByPlaceholder('Search by username or Discord ID...').fill(people.member);
    await visible(memberCard('e2e-member'));
  });

  it('opens the member, overrides its alt status, adds a note and verifies it manually', async () => {
    const test = 'staff-04-detail';
    await memberCard('e2e-member').getByRole('link').click();
    await page.waitForURL(url(`/admin/user/${people.member}`));
    await heading(page, 'Gatekeeper');
    await visible(page.getByText('User verification and alt analysis', { exact: true }));
    await visible(page.getByRole('heading', { name: 'Discord Account & Identity' }));
    await visible(page.getByText(people.member, { exact: true }).first());
    await visible(page.getByRole('heading', { name: 'Admin Management' }));
    await screenshot(page, test, 'member');

    // Manual Alt Status Override
    await page.getByRole('button', { name: 'Manual Alt Status Override' }).click();
    await page.getByRole('combobox', { name: 'Manual alt status' }).click();
    await page.getByRole('option', { name: 'Suspected Alt' }).click();
    await page.getByRole('button', { name: 'Save Alt Status' }).click();
    await toast(page, 'Alt status updated');
    await screenshot(page, test, 'alt-status-updated');

    // Admin Notes (open by default)
    const note = page.getByLabel('Internal note (visible to staff only)');
    await visible(note);
    await note.fill('Checked by e2e: shares no device with anyone.');
    await page.getByRole('button', { name: 'Save Note' }).click();
    await toast(page, 'Note saved');
    const noteMeta = page.getByText(/^(Last saved|No note yet)/);
    await eventually(
      () => noteMeta.textContent(),
      (text) => /^Last saved by e2e-owner on /.test(text ?? ''),
      "the note's 'Last saved by e2e-owner' line",
    );
    await screenshot(page, test, 'note-saved');

    // Manual Verification
    await page.getByRole('button', { name: 'Manual Verification', exact: true }).click();
    await page.getByRole('button', { name: 'Manually Verify User' }).click();
    await toast(page, 'Manual verification successful');
    const already = await visible(page.getByRole('button', { name: 'Already Verified' }));
    expect(await already.isDisabled()).toBe(true);
    await screenshot(page, test, 'manually-verified');
    await e2e().drainOutbox();
    expect(e2e().emulator.state.memberRoleNames(people.member)).toContain('Verified');

    // what was saved survives a reload
    await page.reload();
    await visible(page.getByLabel('Internal note (visible to staff only)'));
    expect(await page.getByLabel('Internal note (visible to staff only)').inputValue()).toBe(
      'Checked by e2e: shares no device with anyone.',
    );
    await page.getByRole('button', { name: 'Manual Alt Status Override' }).click();
    await visible(page.getByRole('combobox', { name: 'Manual alt status' }).getByText('Suspected Alt', { exact: true }));
  });

  it("shows the certain alt on the main account's page with its evidence", async () => {
    const test = 'staff-05-alts';
    await page.goto(url(`/admin/user/${people.main}`));
    await heading(page, 'Gatekeeper');
    await visible(page.getByRole('heading', { name: 'Identified Alternate Accounts' }));
    await visible(page.getByRole('region', { name: 'Certain Alts' }));
    await page.getByRole('button', { name: 'Evidence - e2e-alt-account' }).click();
    await visible(page.getByText('Matched', { exact: true }).first());
    await screenshot(page, test, 'main-account');

    // the alt's avatar tooltip (Radix; the production build runs on Preact) names it and the method
    await page.getByRole('region', { name: 'Certain Alts' }).getByRole('link').first().hover();
    const tooltip = page.getByRole('tooltip');
    await visible(tooltip);
    await visible(tooltip.getByText('e2e-alt-account', { exact: true }));
    await visible(tooltip.getByText(/Detected by:/));
    await screenshot(page, test, 'alt-tooltip');
  });

  it("marks the main account's network as shared, sees it on the dashboard, and unmarks it", async () => {
    const test = 'staff-05b-shared-network';
    await page.goto(url(`/admin/user/${people.main}`));
    await heading(page, 'Gatekeeper');
    await page.getByRole('button', { name: 'Shared Network' }).click();
    await page.getByLabel('Label (optional)').fill('e2e household');
    await page.getByRole('button', { name: 'Mark as Shared Network' }).click();
    await toast(page, 'Network marked as shared');
    await visible(page.getByText('e2e household', { exact: true }));
    await screenshot(page, test, 'marked');

    await page.goto(url('/admin'));
    await heading(page, 'Admin Dashboard');
    await page.getByRole('button', { name: /Shared Networks \(1\)/ }).click();
    await visible(page.getByText('e2e household').first());
    await screenshot(page, test, 'dashboard-panel');

    await page.goto(url(`/admin/user/${people.main}`));
    await page.getByRole('button', { name: 'Shared Network' }).click();
    await page.getByRole('button', { name: 'Unmark Shared Network' }).click();
    await toast(page, 'Shared network unmarked');
    await visible(page.getByRole('button', { name: 'Mark as Shared Network' }));
  });

  it('creates a manual entry with the Discord ID fetch', async () => {
    const test = 'staff-06-manual-entry';
    await page.goto(url('/admin'));
    await page.getByRole('link', { name: 'Manual Entry' }).click();
    await page.waitForURL(url('/admin/manual-entry'));
    await heading(page, 'Manual Entry Creation');
    const fetchButton = page.getByRole('button', { name: 'Fetch Discord user' });
    expect(await fetchButton.isDisabled()).toBe(true);
    await page.getByLabel('Discord ID').fill(people.manual);
    await fetchButton.click();
    await toast(page, 'Discord user fetched');
    await toast(page, 'Found user: e2e-manual-user');
    expect(await page.getByLabel('Username').inputValue()).toBe('e2e-manual-user');
    await visible(page.getByRole('region', { name: 'Preview' }).getByText('e2e-manual-user', { exact: true }));
    await screenshot(page, test, 'fetched');

    await page.getByRole('button', { name: 'Create Entry' }).click();
    await toast(page, 'Entry created');
    // the form resets after success
    await eventually(
      () => page.getByLabel('Discord ID').inputValue(),
      (value) => value === '',
      'the form to reset',
    );
    expect(await page.getByLabel('Username').inputValue()).toBe('');
    await screenshot(page, test, 'created');

    await page.getByRole('link', { name: 'Back to Dashboard' }).click();
    await visible(page.getByRole('heading', { name: 'All Users (4)' }));
    await visible(memberCard('e2e-manual-user'));
  });

  it('creates a staff account and returns to the dashboard after 1.5 s', async () => {
    const test = 'staff-07-create-staff';
    await page.getByRole('link', { name: 'Create Staff' }).click();
    await page.waitForURL(url('/admin/create-staff'));
    await heading(page, 'Create Staff Account');
    await visible(page.getByText('Password must be at least 8 characters long', { exact: true }));
    await page.getByLabel('Username').fill(MODERATOR.username);
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Create Staff Account' }).click();
    await visible(page.getByText('Password must be at least 8 characters', { exact: true }));
    await page.getByLabel('Password', { exact: true }).fill(MODERATOR.password);
    await page.getByRole('button', { name: 'Create Staff Account' }).click();

    await toast(page, 'Staff account created');
    const createdAt = Date.now();
    expect(new URL(page.url()).pathname).toBe('/admin/create-staff');
    expect(await page.getByLabel('Username').inputValue()).toBe('');
    await screenshot(page, test, 'created');
    await page.waitForURL(url('/admin'));
    expect(Date.now() - createdAt).toBeGreaterThan(1_000);
    await heading(page, 'Admin Dashboard');
  });

  it('promotes the new staff member, changes its password and deletes it in /admin/staff', async () => {
    const test = 'staff-08-staff-management';
    await page.getByRole('link', { name: 'Staff Management' }).click();
    await page.waitForURL(url('/admin/staff'));
    await heading(page, 'Staff Management');
    await visible(page.getByRole('heading', { name: 'Existing Staff Accounts' }));
    const row = page.getByRole('listitem', { name: MODERATOR.username });
    await visible(row);
    const owner = page.getByRole('listitem', { name: OWNER.username });
    await visible(owner.getByText('SUPER ADMIN', { exact: true }));
    await visible(owner.getByText('Protected owner account: it cannot be changed here.'));
    expect(await owner.getByRole('button').count()).toBe(0);
    await screenshot(page, test, 'list');

    // promote (browser confirm naming the user)
    const promoteDialog = acceptNextDialog(page);
    await row.getByRole('button', { name: 'Make Super Admin' }).click();
    expect(await promoteDialog).toBe(`Are you sure you want to make ${MODERATOR.username} a super admin?`);
    await toast(page, 'Super admin status updated');
    await visible(row.getByText('SUPER ADMIN', { exact: true }));
    await visible(row.getByRole('button', { name: 'Remove Super Admin' }));
    await screenshot(page, test, 'promoted');

    // change the password; the new one signs in
    await row.getByLabel(`Change Password for ${MODERATOR.username}`).fill(MODERATOR.newPassword);
    await row.getByRole('button', { name: 'Update' }).click();
    await toast(page, 'Password updated');
    const probe = await e2e().newContext();
    const login = (password: string) =>
      probe.request.post(url('/api/staff/login'), { data: { username: MODERATOR.username, password }, headers: { Origin: e2e().url } });
    expect((await login(MODERATOR.newPassword)).status()).toBe(200);
    expect((await login(MODERATOR.password)).status()).toBe(401);
    await probe.close();
    await screenshot(page, test, 'password-updated');

    // delete (browser confirm naming the user)
    const deleteDialog = acceptNextDialog(page);
    await row.getByRole('button', { name: 'Delete' }).click();
    expect(await deleteDialog).toBe(`Are you sure you want to delete staff account ${MODERATOR.username}? This action cannot be undone.`);
    await toast(page, 'Staff account deleted');
    await hidden(row);
    await screenshot(page, test, 'deleted');
  });

  it("deletes a member from the dashboard through the 'Delete Verification Record' dialog", async () => {
    const test = 'staff-09-dashboard-delete';
    await page.goto(url('/admin'));
    const card = memberCard('e2e-manual-user');
    await visible(card);
    await card.hover();
    await card.getByRole('button', { name: 'Delete verification record of e2e-manual-user' }).click();
    const dialog = page
      .getByRole('alertdialog', { name: 'Delete Verification Record' })
      .or(page.getByRole('dialog', { name: 'Delete Verification Record' }));
    await visible(dialog);
    await visible(dialog.getByText(people.manual, { exact: false }));
    await screenshot(page, test, 'dialog');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'User deleted');
    await hidden(dialog);
    await hidden(card);
    await visible(page.getByRole('heading', { name: 'All Users (3)' }));
    await screenshot(page, test, 'deleted');
  });

  it('deletes a member from its detail page (super admin) with the browser confirm', async () => {
    await page.goto(url(`/admin/user/${people.alt}`));
    await heading(page, 'Gatekeeper');
    await page.getByRole('button', { name: 'Delete User' }).click();
    const confirmText = acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete User' }).last().click();
    expect(await confirmText).toBe(
      'Are you sure you want to permanently delete all records for e2e-alt-account? This action cannot be undone.',
    );
    await toast(page, 'User deleted');
    await page.waitForURL(url('/admin'));
    await visible(page.getByRole('heading', { name: 'All Users (2)' }));
    expect(await memberCard('e2e-alt-account').count()).toBe(0);
  });

  it('shows the audit log of those actions', async () => {
    const test = 'staff-10-audit';
    await page.getByRole('link', { name: 'Audit Log' }).click();
    await page.waitForURL(url('/admin/audit'));
    await heading(page, 'Audit Log');
    await visible(page.getByText('Chain verified', { exact: true }));
    const entries = page.getByRole('list', { name: 'Audit entries' });
    await visible(entries);
    // each entry is a sentence with names, and its action's label ("Owner account created", "Staff account deleted", …)
    for (const label of [
      'Owner account created',
      'Signed in',
      'Network marked shared',
      'Network unmarked',
      'Alt status changed',
      'Note added',
      'Verified by hand',
      'Record created by hand',
      'Staff account created',
      'Made super admin',
      'Password changed',
      'Staff account deleted',
      'Records deleted',
    ]) {
      await visible(entries.getByText(label, { exact: true }).first());
    }
    await visible(
      entries
        .getByTestId('audit-sentence')
        .filter({ hasText: `deleted the staff account ${MODERATOR.username}` })
        .first(),
    );
    await screenshot(page, test, 'log');
    await page.getByRole('combobox', { name: 'Action' }).click();
    await page.getByRole('option', { name: 'Staff account deleted' }).click();
    await page.getByRole('button', { name: 'Filter' }).click();
    await eventually(
      () => entries.getByRole('listitem').count(),
      (count) => count === 1,
      'one staff.delete entry',
    );
    await visible(entries.getByText(MODERATOR.username, { exact: false }));
    await screenshot(page, test, 'filtered');
  });

  it('logs out to /admin/login, and the dashboard then sends back to login', async () => {
    const test = 'staff-11-logout';
    await page.goto(url('/admin'));
    await heading(page, 'Admin Dashboard');
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL(url('/admin/login'));
    await heading(page, 'Staff Login');
    await screenshot(page, test, 'login');
    await page.goto(url('/admin'));
    await page.waitForURL(url('/admin/login'));
    await heading(page, 'Staff Login');
    // setup is closed once an account exists
    await page.goto(url('/setup'));
    await visible(page.getByText('Setup is closed', { exact: true }));
    expect(await page.getByRole('button', { name: 'Create Admin Account' }).count()).toBe(0);
  });
});
