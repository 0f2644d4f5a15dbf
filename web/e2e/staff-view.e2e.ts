/**
 * What staff see of a member's standing, and the account and form fixes around it, in Chromium:
 * the detail page's standing for a Limited Access, a certain-alt, a suspected and a clean member
 * at 1280 and 360 px; Manual Entry's messages; Staff Management's toast clear of the last row's
 * 'Update'; the success box's icon; the owner changing their own password.
 */
import type { Locator, Page } from 'playwright-core';
import { buildLink, buildMember } from '../../src/test-support/factories';
import { heading, screenshot, signInAsNewOwner, toast, useE2E, visible } from './harness';

jest.setTimeout(90_000);

const OWNER = { username: 'view-owner', password: 'owner-password-1' };
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 360, height: 780 };

describe('staff view (Chromium, sandbox mode)', () => {
  const e2e = useE2E();
  let page: Page;
  const url = (path: string) => `${e2e().url}${path}`;
  const ids = { limited: '', certain: '', suspected: '', clean: '' };

  beforeAll(async () => {
    const { db } = e2e().database;
    const limited = await buildMember(db, {
      username: 'limited-larry',
      status: 'limited_access',
      rulesConfirmed: false,
      guildAccess: 'limited',
      usedVpn: true,
      vpnAttempts: 2,
      vpnProvider: 'NordVPN',
      verificationCount: 2,
      createdAt: new Date('2026-11-01T09:15:00Z'),
      verifiedAt: new Date('2026-11-02T18:40:00Z'),
    });
    const main = await buildMember(db, { username: 'main-mary', guildAccess: 'verified', altsFound: 1 });
    const certain = await buildMember(db, { username: 'second-sam', guildAccess: 'verified', isLinkedAsAlt: true, altsFound: 1 });
    await buildLink(db, main.id, certain.id, {
      confidence: 'certain',
      detectionMethod: 'both',
      evidence: { fingerprintMatch: true, ipMatch: true, networkMatch: true, componentMatches: 8 },
    });
    const suspected = await buildMember(db, { username: 'suspect-sue', guildAccess: 'verified', manualAltStatus: 'suspected_alt' });
    const clean = await buildMember(db, { username: 'clean-carl', guildAccess: 'verified' });
    Object.assign(ids, { limited: limited.discordId, certain: certain.discordId, suspected: suspected.discordId, clean: clean.discordId });

    page = await signInAsNewOwner(e2e(), OWNER);
  }, 90_000);

  afterEach(async () => page.setViewportSize(DESKTOP));

  async function standingOf(discordId: string) {
    await page.goto(url(`/admin/user/${discordId}`));
    const standing = await visible(page.getByTestId('standing'));
    const badges = await standing.getByRole('listitem').allInnerTexts();
    const reason = await standing.getByTestId('standing-reason').innerText();
    const fact = (label: string) =>
      standing
        .locator('div', { has: page.getByText(label, { exact: true }) })
        .locator('dd')
        .first()
        .innerText();
    return { standing, badges, reason, status: await fact('Verification status'), verifications: await fact('Verifications') };
  }

  /** The standing card sits above the identity card, and nothing in it overflows the viewport. */
  async function checkLayout(standing: Locator, width: number) {
    const box = (await standing.boundingBox())!;
    const identity = (await page.getByRole('heading', { name: 'Discord Account & Identity' }).boundingBox())!;
    expect(box.y).toBeLessThan(identity.y);
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
  }

  it.each([
    [
      'limited',
      'limited',
      ['Limited Access', 'VPN (2)', '2x'],
      'Limited Access after a VPN check (NordVPN)',
      'Limited Access (VPN: NordVPN)',
      '2',
    ],
    ['certain-alt', 'certain', ['Certain Alt'], 'Shared device profile and address with @main-mary', 'Verified', '1'],
    ['suspected', 'suspected', ['Suspected Alt'], 'Marked suspected alt by staff', 'Verified', '1'],
    ['clean', 'clean', ['Verified'], 'Nothing flagged: no alt link, staff override or hold.', 'Verified', '1'],
  ] as const)(
    'shows the standing of a %s member at the top of the detail page, at 1280 and 360 px',
    async (name, key, badges, reason, status, verifications) => {
      const test = `standing-${name}`;
      for (const viewport of [DESKTOP, PHONE]) {
        await page.setViewportSize(viewport);
        const seen = await standingOf(ids[key]);
        expect({ badges: seen.badges, reason: seen.reason, status: seen.status, verifications: seen.verifications }).toEqual({
          badges: [...badges],
          reason,
          status,
          verifications,
        });
        await checkLayout(seen.standing, viewport.width);
        await screenshot(page, test, viewport === DESKTOP ? '1280' : '360');
      }
    },
  );

  it('shows the same badges on the dashboard card as on the detail page', async () => {
    await page.goto(url('/admin'));
    const card = page.getByRole('link', { name: /limited-larry/ });
    await visible(card);
    expect(await card.getByRole('list', { name: 'Status' }).getByRole('listitem').allInnerTexts()).toEqual([
      'Limited Access',
      'VPN (2)',
      '2x',
    ]);
  });

  it('Manual Entry: the required messages go once both fields are filled', async () => {
    const test = 'staff-view-manual-entry';
    await page.goto(url('/admin/manual-entry'));
    await heading(page, 'Manual Entry Creation');
    await page.getByRole('button', { name: 'Create Entry' }).click();
    await visible(page.getByText('Discord ID is required', { exact: true }));
    await visible(page.getByText('Username is required', { exact: true }));
    await screenshot(page, test, 'empty-submit');
    await page.getByRole('textbox', { name: 'Discord ID' }).fill('300000000000000777');
    await page.getByRole('textbox', { name: 'Username' }).fill('typed-user');
    await expect(page.getByText('Discord ID is required', { exact: true }).count()).resolves.toBe(0);
    await expect(page.getByText('Username is required', { exact: true }).count()).resolves.toBe(0);
    await screenshot(page, test, 'filled');
  });

  it('Create Staff: the success box carries a check, not a warning triangle', async () => {
    const test = 'staff-view-create-staff';
    await page.goto(url('/admin/create-staff'));
    await heading(page, 'Create Staff Account');
    await page.getByLabel('Username').fill('row-0');
    await page.getByLabel('Password').fill('row-password-0');
    await page.getByRole('button', { name: 'Create Staff Account' }).click();
    const box = await visible(page.getByRole('note').filter({ hasText: 'Staff account created' }));
    expect(await box.locator('svg').first().getAttribute('data-icon')).toBe('check');
    await screenshot(page, test, 'success');
    await page.waitForURL(url('/admin'));
  });

  it.each([DESKTOP, PHONE])('Staff Management: the toast after the last row’s Update keeps clear of the button (%o)', async (viewport) => {
    const test = `staff-view-staff-toast-${viewport.width}`;
    for (let i = 1; i <= 4; i += 1)
      await page.request.post(url('/api/admin/staff'), { data: { username: `row-${viewport.width}-${i}`, password: `row-password-${i}` } });
    await page.setViewportSize(viewport);
    await page.goto(url('/admin/staff'));
    await heading(page, 'Staff Management');
    const last = `row-${viewport.width}-4`;
    const input = page.getByLabel(`Change Password for ${last}`);
    await input.scrollIntoViewIfNeeded();
    await input.fill('a-fresh-password');
    const form = page.locator('form', { has: input });
    const update = form.getByRole('button', { name: 'Update' });
    await update.click();
    const shown = await toast(page, 'Password updated');
    const toastBox = (await page.locator('li[data-variant]', { has: shown }).first().boundingBox()) ?? (await shown.boundingBox())!;
    const buttonBox = (await update.boundingBox())!;
    const overlaps =
      toastBox.x < buttonBox.x + buttonBox.width &&
      buttonBox.x < toastBox.x + toastBox.width &&
      toastBox.y < buttonBox.y + buttonBox.height &&
      buttonBox.y < toastBox.y + toastBox.height;
    await page.screenshot({ path: (await screenshot(page, test, 'full')).replace(/full\.png$/, 'viewport.png') });
    expect({ overlaps, toast: toastBox, button: buttonBox }).toMatchObject({ overlaps: false });
  });

  it('the owner changes their own password from the dashboard header; the old one stops working', async () => {
    const test = 'staff-view-change-password';
    await page.goto(url('/admin'));
    await page.getByRole('link', { name: 'Change Password' }).click();
    await heading(page, 'Change Password');
    await page.getByLabel('Current password').fill('not-my-password');
    await page.getByLabel('New password', { exact: true }).fill('owner-password-2');
    await page.getByLabel('Confirm new password').fill('owner-password-2');
    await page.getByRole('button', { name: 'Change Password' }).click();
    await visible(page.getByRole('alert').filter({ hasText: 'Current password is incorrect' }));
    await screenshot(page, test, 'wrong-current');
    await page.getByLabel('Current password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Change Password' }).click();
    await toast(page, 'Password updated');
    await visible(page.getByText('Password changed', { exact: true }));
    await screenshot(page, test, 'done-1280');
    await page.setViewportSize(PHONE);
    await screenshot(page, test, 'done-360');
    // this session carries on; a sign-in with the old password is refused
    expect((await page.request.get(url('/api/admin/session'))).status()).toBe(200);
    const oldLogin = await page
      .context()
      .request.post(url('/api/staff/login'), { data: { username: OWNER.username, password: OWNER.password } });
    expect(oldLogin.status()).toBe(401);
  });
});
