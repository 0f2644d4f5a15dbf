/**
 * The owner's tools in Chromium: the Settings page (save, a refused value, phone width)
 * and the dashboard's lockdown banner.
 */
import type { Page } from 'playwright-core';
import { heading, screenshot, SETUP_CODE, toast, useE2E, visible } from './harness';

jest.setTimeout(60_000);

const OWNER = { username: 'e2e-owner', password: 'owner-password-1' };

describe('owner tools (Chromium, sandbox mode)', () => {
  const e2e = useE2E();
  let page: Page;
  const url = (path: string) => `${e2e().url}${path}`;

  beforeAll(async () => {
    const context = await e2e().newContext();
    page = await context.newPage();
    const setup = await context.request.post(url('/api/setup-admin'), { data: { setupCode: SETUP_CODE, ...OWNER } });
    expect(setup.status()).toBe(201);
    await page.goto(url('/admin/login'));
    await page.getByLabel('Username').fill(OWNER.username);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL(url('/admin'));
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

    await page.getByLabel('Minimum account age (days)').fill('-2');
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await visible(page.getByText('Minimum account age must be at least 0', { exact: true }));
    await screenshot(page, test, 'refused');
    await page.setViewportSize({ width: 360, height: 780 });
    await screenshot(page, test, 'phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('starts a lockdown from the dashboard banner and ends it keeping the held members', async () => {
    const test = 'owner-02-lockdown';
    await page.goto(url('/admin'));
    await page.getByLabel('Lockdown reason').fill('spam wave');
    await page.getByRole('button', { name: 'Start Lockdown' }).click();
    await toast(page, 'Lockdown is on');
    await visible(page.getByText('Lockdown is on', { exact: true }).first());
    await visible(page.getByText('Held for review: 0'));
    await screenshot(page, test, 'on');
    await page.setViewportSize({ width: 360, height: 780 });
    await screenshot(page, test, 'on-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'End Lockdown, Keep Held' }).click();
    await toast(page, 'Lockdown ended; held members stay held');
    await visible(page.getByRole('button', { name: 'Start Lockdown' }));
  });
});
