/**
 * The dashboard's Discord banners in Chromium, at 1280 and 390 px: a configured role deleted in Discord (the
 * self-check's problem with the setting to change, and the role change waiting for it), then Discord rejecting
 * the bot token (the red banner) with the invalid-request warning. Each screen is screenshotted and must not
 * scroll sideways at phone width.
 */
import type { Page } from 'playwright-core';
import { eventually, screenshot, signInAsNewOwner, useE2E, visible } from './harness';

jest.setTimeout(90_000);

const OWNER = { username: 'e2e-banner-owner', password: 'owner-password-1' };

describe('Discord banners on the dashboard (Chromium, sandbox mode)', () => {
  const e2e = useE2E();
  let page: Page;

  beforeAll(async () => {
    page = await signInAsNewOwner(e2e(), OWNER);
  }, 60_000);

  const setupReport = async () =>
    (await page.request.get(`${e2e().url}/api/admin/discord-setup`)).json() as Promise<{
      problems: { problem: string }[];
      waiting: { count: number } | null;
      token: { status: string } | null;
      invalidRequests: { budget: string } | null;
    }>;

  /** The dashboard at 1280 px and at 390 px (no sideways scroll there), screenshotted at both. */
  async function lookAtBoth(test: string): Promise<void> {
    await screenshot(page, test, 'desktop', { fullPage: false });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(100); // one layout pass at the new width
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, test, 'phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('a role deleted in Discord: the problem names the setting to change, and the role change waiting for it is counted', async () => {
    const test = 'banners-01-deleted-role';
    const { emulator, handle } = e2e();
    const member = emulator.state.findUserByName('sandbox-member')!.id;
    emulator.deleteRole('Verified');
    await eventually(
      setupReport,
      (r) => r.problems.some((p) => p.problem.includes('does not exist in Discord')),
      'the self-check to see the deleted role',
    );
    await handle.services.outbox.enqueue(e2e().database.db, {
      kind: 'update_roles',
      discordId: member,
      add: ['verified'],
      remove: ['unverified'],
      reason: 'Gatekeeper: verified (e2e)',
    });
    await e2e().drainOutbox();
    await eventually(setupReport, (r) => (r.waiting?.count ?? 0) === 1, 'the role change to wait for the fix');

    await page.goto(`${e2e().url}/admin`);
    await visible(page.getByRole('heading', { name: 'The bot cannot do everything it needs on your Discord server' }));
    await visible(
      page.getByText('The Verified role "Verified" does not exist in Discord (deleted or renamed): Gatekeeper cannot give or take it.', {
        exact: true,
      }),
    );
    await visible(
      page.getByText(/Set the Verified role setting \(dashboard Settings, or DISCORD_VERIFIED_ROLE\) to an existing role/).first(),
    );
    await visible(page.getByRole('heading', { name: '1 Discord action is waiting for a fix on your Discord server' }));
    await lookAtBoth(test);
  });

  it('Discord rejects the bot token, with the invalid-request warning: the red banner says work is paused and nothing is lost', async () => {
    const test = 'banners-02-token-rejected';
    const { emulator, handle } = e2e();
    emulator.faults.revokeBotToken();
    // a Discord call answered 401 marks the token rejected (a log line's post)
    await handle.services.outbox.enqueue(e2e().database.db, { kind: 'log_message', text: 'e2e: a line while the token is revoked' });
    await e2e().drainOutbox();
    // Discord counted invalid answers past a quarter of its limit: the gate slows calls and staff are told
    const invalid = handle.services.guard.invalid;
    while (handle.services.guard.gate.state() === 'open') invalid.record('member-roles', 403, null);
    await eventually(
      setupReport,
      (r) => r.token?.status === 'rejected' && r.invalidRequests?.budget !== 'open',
      'the token to be rejected and the budget slowed',
    );

    await page.goto(`${e2e().url}/admin`);
    await visible(page.getByRole('heading', { name: 'Discord rejected the bot token: all Discord work is paused' }));
    await visible(page.getByText(/Nothing is lost: roles, joins and log messages wait in the queue/));
    await visible(page.getByText(/Discord Developer Portal → your application → Bot → Reset Token/));
    await visible(page.getByRole('heading', { name: /Discord refused [\d,]+ requests in the last 10 minutes/ }));
    await lookAtBoth(test);
    emulator.faults.restoreBotToken();
  });
});
