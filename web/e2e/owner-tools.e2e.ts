/**
 * The owner's tools in Chromium: the Settings page (save, persisted after a reload, a
 * refused value, phone width), the Statistics page (Chart.js charts over seeded data for
 * each period, desktop and phone) and the dashboard's lockdown banner. The harness fails
 * the file on any Content-Security-Policy violation, so the charts are checked under the
 * product's CSP too.
 */
import type { Page } from 'playwright-core';
import type { Database } from '../../src/db/client';
import { eventually, heading, hidden, screenshot, signInAsNewOwner, toast, useE2E, visible } from './harness';

jest.setTimeout(60_000);

const OWNER = { username: 'e2e-owner', password: 'owner-password-1' };

describe('owner tools (Chromium, sandbox mode)', () => {
  const e2e = useE2E();
  let page: Page;
  const url = (path: string) => `${e2e().url}${path}`;

  beforeAll(async () => {
    page = await signInAsNewOwner(e2e(), OWNER);
  }, 60_000);

  it('opens Settings from the dashboard, saves a value, refuses an out-of-range one with the server message', async () => {
    const test = 'owner-01-settings';
    await page.getByRole('link', { name: 'Settings' }).click();
    await heading(page, 'Settings');
    await screenshot(page, test, 'desktop');
    const retention = page.getByLabel('Retention (days)');
    await retention.fill('45');
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await toast(page, 'Settings saved');
    await visible(page.getByRole('button', { name: 'Use the default' }).first());
    const config = await page.request.get(url('/api/config'));
    expect((await config.json()).dataRetentionDays).toBe(45);
    // persisted: a reload reads it back from the server
    await page.reload();
    await heading(page, 'Settings');
    await expect(page.getByLabel('Retention (days)').inputValue()).resolves.toBe('45');

    await page.getByLabel('Minimum account age (days)').fill('-2');
    await page.getByRole('button', { name: 'Save Settings' }).click();
    // at the field, which takes the focus, and in a toast that shows wherever the page is scrolled
    await visible(page.getByText('Minimum account age must be at least 0', { exact: true }).first());
    await expect(page.getByLabel('Minimum account age (days)').getAttribute('aria-invalid')).resolves.toBe('true');
    const focused = await page.evaluate<{ id: string | null; invalid: string | null }>(
      "({ id: document.activeElement && document.activeElement.id, invalid: document.activeElement && document.activeElement.getAttribute('aria-invalid') })",
    );
    expect(focused).toEqual({ id: await page.getByLabel('Minimum account age (days)').getAttribute('id'), invalid: 'true' });
    await toast(page, 'Not saved');
    await screenshot(page, test, 'refused');
    await page.setViewportSize({ width: 360, height: 780 });
    await screenshot(page, test, 'phone');
    await screenshot(page, test, 'phone-top', { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('draws the statistics charts for 7, 30 and 90 days from stored verifications, alt links and raid alarms', async () => {
    const test = 'owner-03-statistics';
    await seedStatistics(e2e().database);
    await page.goto(url('/admin'));
    await page.getByRole('link', { name: 'Statistics' }).click();
    await heading(page, 'Statistics');
    for (const days of [7, 30, 90]) {
      await page.getByRole('button', { name: `${days} days` }).click();
      await visible(page.getByRole('button', { name: `${days} days`, pressed: true }));
      // one verification per day for the last 100 days, a tenth of them Limited Access
      const expected = days - Math.floor(days / 10);
      await visible(page.getByText(`Verified: ${expected}`, { exact: true }));
      // the VPN providers' chart once a VPN attempt is in the period (the first is 9 days ago); appeals always
      const charts = days >= 10 ? 5 : 4;
      await chartsDrawn(page, charts);
      await screenshot(page, test, `${days}-days`);
      await page.setViewportSize({ width: 360, height: 780 });
      await chartsDrawn(page, charts);
      await screenshot(page, test, `${days}-days-phone`);
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    // the text alternative
    await page.getByText('Show as a table').first().click();
    await visible(page.getByRole('table', { name: 'Verifications per day by outcome' }));
    await screenshot(page, test, 'table');
    await page.setViewportSize({ width: 360, height: 780 });
    await screenshot(page, test, 'table-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('starts a lockdown from the dashboard banner after a confirmation that says what happens, pauses invites in Discord, and ends it keeping the held members', async () => {
    const test = 'owner-02-lockdown';
    const { emulator } = e2e();
    await page.goto(url('/admin'));
    // the control explains itself before anything is clicked
    await visible(page.getByText('What Start Lockdown does:'));
    await page.getByLabel('Lockdown reason').fill('spam wave');
    await page.getByRole('button', { name: 'Start Lockdown' }).click();
    const start = page.getByRole('alertdialog', { name: 'Start Lockdown?' });
    await visible(start);
    await visible(start.getByText('New verifications get Limited Access instead of Verified.'));
    await visible(
      start.getByText('Discord pauses invites for this server; Gatekeeper renews the pause every few hours while the lockdown lasts.'),
    );
    await visible(start.getByText('It lasts until staff end it, here or with /lockdown off.'));
    await screenshot(page, test, 'confirm-on', { fullPage: false });
    await page.setViewportSize({ width: 390, height: 780 });
    await screenshot(page, test, 'confirm-on-phone', { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
    await start.getByRole('button', { name: 'Start Lockdown' }).click();
    await toast(page, 'Lockdown is on');
    await visible(page.getByText('Lockdown is on', { exact: true }).first());
    await visible(page.getByText('Held for review: 0'));
    await e2e().drainOutbox();
    expect(emulator.state.guild.incidents.invites_disabled_until).not.toBeNull();
    expect(emulator.state.guild.incidents.dms_disabled_until).toBeNull();
    await page.reload();
    await visible(page.getByText(/^Paused in Discord: invites, until .+ \(renewed while the lockdown lasts\)\.$/));
    // the banner is at the top: the viewport, not the member list under it
    await screenshot(page, test, 'on', { fullPage: false });
    await page.setViewportSize({ width: 390, height: 780 });
    await screenshot(page, test, 'on-phone', { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'End Lockdown, Keep Held' }).click();
    const end = page.getByRole('alertdialog', { name: 'End Lockdown, Keep Held?' });
    await visible(end.getByText("Discord's pause of invites is lifted."));
    await visible(end.getByText('Members held for review stay held: release them one by one or all at once later.'));
    await screenshot(page, test, 'confirm-off', { fullPage: false });
    await end.getByRole('button', { name: 'End Lockdown' }).click();
    await toast(page, 'Lockdown ended; held members stay held');
    await visible(page.getByRole('button', { name: 'Start Lockdown' }));
    await hidden(page.getByText('Lockdown is on', { exact: true }).first());
    await e2e().drainOutbox();
    expect(emulator.state.guild.incidents.invites_disabled_until).toBeNull();
    await screenshot(page, test, 'off', { fullPage: false });
  });

  it('with the verification level lever on, the lockdown raises it in Discord, the banner says so, and ending it puts the level back', async () => {
    const { emulator, handle } = e2e();
    await handle.services.settings.update({ type: 'staff', id: 'e2e', name: 'Owner' }, { lockdownVerificationLevel: 'high' });
    try {
      const before = emulator.state.guild.verificationLevel;
      await page.goto(url('/admin'));
      await page.getByRole('button', { name: 'Start Lockdown' }).click();
      const start = page.getByRole('alertdialog', { name: 'Start Lockdown?' });
      await visible(start.getByText("Discord's verification level is raised to High, and put back when the lockdown ends."));
      await start.getByRole('button', { name: 'Start Lockdown' }).click();
      await toast(page, 'Lockdown is on');
      await e2e().drainOutbox();
      expect(emulator.state.guild.verificationLevel).toBe(3);
      await page.reload();
      await visible(
        page.getByText(/^Verification level raised in Discord to High \(was (None|Low|Medium)\); put back when the lockdown ends\.$/),
      );

      await page.getByRole('button', { name: 'End Lockdown, Keep Held' }).click();
      await page.getByRole('alertdialog', { name: 'End Lockdown, Keep Held?' }).getByRole('button', { name: 'End Lockdown' }).click();
      await toast(page, 'Lockdown ended; held members stay held');
      await e2e().drainOutbox();
      expect(emulator.state.guild.verificationLevel).toBe(before);
    } finally {
      await handle.services.settings.update({ type: 'staff', id: 'e2e', name: 'Owner' }, { lockdownVerificationLevel: 'off' });
    }
  });
});

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A hundred days of history: one verification a day (every tenth through a VPN, Limited
 * Access), an alt link every other day, a raid alarm every ten days.
 */
async function seedStatistics(database: Database): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < 100; i++) {
    const at = new Date(now - i * DAY_MS).toISOString();
    const vpn = i % 10 === 9;
    const { rows } = await database.query<{ id: number }>(
      `insert into members (discord_id, username, status, rules_confirmed, verified_at) values ($1, $2, $3, true, $4) returning id`,
      [String(300000000000000000n + BigInt(i)), `stats${i}`, vpn ? 'limited_access' : 'verified', at],
    );
    await database.query(
      `insert into verification_attempts (member_id, outcome, vpn_verdict, vpn_provider, created_at) values ($1, $2, $3, $4, $5)`,
      [
        rows[0]!.id,
        vpn ? 'limited_access' : 'verified',
        vpn ? 'vpn' : 'clean',
        vpn ? (i % 20 === 9 ? 'NordVPN' : 'Mullvad VPN') : null,
        at,
      ],
    );
  }
  await database.query(`
    insert into alt_links (main_member_id, alt_member_id, confidence, detection_method, created_at)
    select m.id, n.id, (array['certain', 'medium', 'possible'])[1 + (m.id % 3)::int], 'both', m.verified_at
    from members m join members n on n.discord_id = (m.discord_id::bigint + 1)::text
    where m.username like 'stats%' and m.id % 2 = 0`);
  await database.query(`
    insert into raid_alarms (raised_at, window_minutes, verifications, baseline_x100, young_percent, shared_percent)
    select now() - make_interval(days => g * 10), 10, 40, 120, 80, 60 from generate_series(0, 9) as g`);
}

/** Waits until `count` chart canvases have a size and something drawn on them. */
async function chartsDrawn(page: Page, count: number): Promise<void> {
  await eventually(
    () =>
      // run in the page (a string: this project's TypeScript has no DOM types)
      page.evaluate<number>(`[...document.querySelectorAll('canvas')].filter((canvas) => {
        const context = canvas.getContext('2d');
        if (!context || canvas.width === 0 || canvas.height === 0) return false;
        const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
        return false;
      }).length`),
    (drawn) => drawn >= count,
    `${count} charts drawn`,
  );
}
