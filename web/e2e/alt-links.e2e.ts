/**
 * "Not the same person" in Chromium: a member with two detected alts; staff dismiss one
 * link from the detail page (confirm step, reason), see it greyed with Reopen, the words
 * beside each avatar at 1280 px and on a 360 px phone, then reopen it.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { altLinkRepository } from '../../src/modules/alts';
import { buildLink, buildMember } from '../../src/test-support/factories';
import { seedTeam, TEAM } from '../../src/test-support/staff-test-kit';
import { hidden, screenshot, SCREENSHOT_DIR, toast, useE2E, visible } from './harness';

jest.setTimeout(60_000);

const MAIN = '320000000000000001';
const TWIN = '320000000000000002';
const PHONE = '320000000000000003';

describe('dismissing a detected alt link (Chromium, sandbox mode)', () => {
  const e2e = useE2E();
  let page: Page;

  beforeAll(async () => {
    const { db } = e2e().database;
    await seedTeam(db);
    const main = await buildMember(db, { discordId: MAIN, username: 'e2e-main-account' });
    const twin = await buildMember(db, { discordId: TWIN, username: 'e2e-twin-with-a-rather-long-username' });
    const phone = await buildMember(db, { discordId: PHONE, username: 'e2e-phone' });
    await buildLink(db, main.id, twin.id, {
      confidence: 'certain',
      detectionMethod: 'both',
      evidence: { components: { canvas: true, webgl: true, audio: true } },
    });
    await buildLink(db, main.id, phone.id, { confidence: 'medium', detectionMethod: 'fingerprint' });
    await altLinkRepository.recomputeCounters(db, [main.id, twin.id, phone.id]);

    const context = await e2e().newContext();
    page = await context.newPage();
    const login = await page.request.post(`${e2e().url}/api/staff/login`, {
      data: { username: TEAM.mod.username, password: TEAM.mod.password },
      headers: { Origin: e2e().url },
    });
    expect(login.status()).toBe(200);
  });

  it('dismisses one link with a reason, shows it greyed with Reopen at 1280 and 360 px, and reopens it', async () => {
    const test = 'alt-links';
    await page.goto(`${e2e().url}/admin/user/${MAIN}`);
    await visible(page.getByRole('heading', { name: 'Identified Alternate Accounts' }));
    const certain = page.getByRole('region', { name: 'Certain Alts' });
    // readable without hovering
    await visible(certain.getByText('Certain · IP address and device fingerprint', { exact: true }));
    await visible(
      page.getByRole('region', { name: 'Medium-Confidence Alts' }).getByText('Medium confidence · Device fingerprint', { exact: true }),
    );
    await screenshot(page, test, 'before-1280');

    await certain.getByRole('button', { name: 'Not the same person: e2e-twin-with-a-rather-long-username' }).click();
    const dialog = page.getByRole('alertdialog');
    await visible(dialog.getByText('Not the same person?', { exact: true }));
    await dialog.getByLabel('Reason (optional)').fill('Twins, confirmed on a voice call');
    await screenshot(page, test, 'confirm-1280');
    await dialog.getByRole('button', { name: 'Not the same person', exact: true }).click();
    await toast(page, 'Link dismissed');
    await hidden(certain);

    const dismissed = page.getByRole('region', { name: 'Dismissed links' });
    await visible(dismissed.getByText('Dismissed — not the same person', { exact: true }));
    await visible(dismissed.getByText(/By Mod on .+ · “Twins, confirmed on a voice call”/));
    await visible(page.getByText('Alt Accounts Found').locator('..').getByText('1', { exact: true }));
    await screenshot(page, test, 'dismissed-1280');

    await page.getByRole('button', { name: 'Close' }).first().click();
    await hidden(page.getByText('Link dismissed', { exact: true }).first());
    await page.setViewportSize({ width: 360, height: 800 });
    await screenshot(page, test, 'dismissed-360');
    // the alts section alone, at the phone's width, to read it at full size
    // bounding boxes are in the viewport, a full-page clip in the page
    const scrollY = await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY);
    const top = (await page.getByRole('heading', { name: 'Identified Alternate Accounts' }).boundingBox())!;
    const bottom = (await page.getByRole('button', { name: /^Evidence - / }).boundingBox())!;
    await page.screenshot({
      path: path.join(SCREENSHOT_DIR, `${test}-dismissed-360-section.png`),
      fullPage: true,
      clip: { x: 0, y: scrollY + top.y - 24, width: 360, height: bottom.y + bottom.height + 48 - top.y },
    });
    await page.setViewportSize({ width: 1280, height: 900 });

    await dismissed.getByRole('button', { name: 'Reopen the link to e2e-twin-with-a-rather-long-username' }).click();
    await toast(page, 'Link reopened');
    await visible(page.getByRole('region', { name: 'Certain Alts' }).getByRole('button', { name: /Not the same person/ }));
    await hidden(dismissed);
  });
});
