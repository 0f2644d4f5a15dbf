/**
 * Every page at a phone's width and a desktop's: no page scrolls sideways at 390 px, and each is
 * saved as a screenshot at 390 and 1280 px (test-results/screenshots/screens-<page>-<width>.png),
 * so a person can look at the whole product after a run. The dashboard, a member's page and the
 * sandbox channel view are also written to docs/screenshots/ for the README: the pictures there
 * are made by this run and stay current.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildLink, buildMember } from '../../src/test-support/factories';
import { networkQuiet, screenshot, signInAsNewOwner, useE2E, visible } from './harness';
import { agreeToRules, completeInDiscord, consentAndStart, emulatorUser, signInOnDiscord } from './visitor-journey';

jest.setTimeout(120_000);

const OWNER = { username: 'screens-owner', password: 'owner-password-1' };
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const README_SHOTS = path.resolve(__dirname, '../../docs/screenshots');

/**
 * How far the page reaches past the viewport's right edge, in CSS pixels (0: no sideways
 * scroll), and the widest element that does it. An element inside a box that scrolls or clips
 * on its own (a wide table in its scroller) does not move the page and is not counted. The
 * script runs in the page (the e2e files compile without the DOM's types).
 */
const OVERFLOW_SCRIPT = `(() => {
  const viewport = document.documentElement.clientWidth;
  let right = viewport;
  let widest = '';
  const clipped = (element) => {
    for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
      const overflow = getComputedStyle(parent).overflowX;
      if (overflow !== 'visible') return true;
    }
    return false;
  };
  for (const element of document.body.querySelectorAll('*')) {
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.right > right + 0.5 && !clipped(element)) {
      right = box.right;
      widest = element.tagName.toLowerCase() + (typeof element.className === 'string' && element.className ? '.' + element.className.split(' ').slice(0, 3).join('.') : '');
    }
  }
  return { overflow: Math.max(document.documentElement.scrollWidth - viewport, Math.round(right - viewport)), widest };
})()`;

async function sidewaysOverflow(page: Page): Promise<{ overflow: number; widest: string }> {
  return page.evaluate<{ overflow: number; widest: string }>(OVERFLOW_SCRIPT);
}

describe('every page at 390 and 1280 px (Chromium, sandbox mode)', () => {
  const e2e = useE2E({ TRUST_PROXY: 'loopback' });
  let staff: Page;
  const url = (p: string) => `${e2e().url}${p}`;
  let memberId = '';

  beforeAll(async () => {
    const { db } = e2e().database;
    const main = await buildMember(db, { username: 'main-mary', guildAccess: 'verified', altsFound: 1 });
    const alt = await buildMember(db, {
      username: 'second-sam-with-a-rather-long-username',
      guildAccess: 'verified',
      isLinkedAsAlt: true,
      altsFound: 1,
    });
    await buildLink(db, main.id, alt.id, {
      confidence: 'certain',
      detectionMethod: 'both',
      evidence: { fingerprintMatch: true, ipMatch: true, networkMatch: true, componentMatches: 8 },
    });
    await buildMember(db, {
      username: 'limited-larry',
      status: 'limited_access',
      guildAccess: 'limited',
      usedVpn: true,
      vpnAttempts: 2,
      vpnProvider: 'NordVPN',
    });
    memberId = alt.discordId;
    staff = await signInAsNewOwner(e2e(), OWNER);
  }, 90_000);

  const adminPages: [string, string][] = [
    ['dashboard', '/admin'],
    ['member', '/admin/user/:member'],
    ['appeals', '/admin/appeals'],
    ['audit', '/admin/audit'],
    ['settings', '/admin/settings'],
    ['statistics', '/admin/statistics'],
    ['staff', '/admin/staff'],
    ['create-staff', '/admin/create-staff'],
    ['manual-entry', '/admin/manual-entry'],
    ['account', '/admin/account'],
    ['not-found', '/admin/no-such-page'],
  ];

  it.each(adminPages)('the %s page does not scroll sideways at 390 px', async (name, route) => {
    for (const viewport of [PHONE, DESKTOP]) {
      await staff.setViewportSize(viewport);
      await staff.goto(url(route.replace(':member', memberId)));
      await visible(staff.getByRole('heading', { level: 1 }).first());
      await networkQuiet(staff);
      expect({ page: name, width: viewport.width, ...(await sidewaysOverflow(staff)) }).toEqual({
        page: name,
        width: viewport.width,
        overflow: 0,
        widest: '',
      });
      const file = await screenshot(staff, `screens-${name}`, String(viewport.width));
      if (viewport === DESKTOP && (name === 'dashboard' || name === 'member')) saveForReadme(file, `${name}.png`);
    }
  });

  it("the dashboard's actions fold behind 'Menu' on a phone and show inline on a desktop", async () => {
    await staff.setViewportSize(PHONE);
    await staff.goto(url('/admin'));
    const menu = await visible(staff.getByRole('button', { name: 'Menu' }));
    const settings = staff.getByRole('link', { name: 'Settings' });
    expect(await settings.isVisible()).toBe(false);
    await menu.click();
    await visible(settings);
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await sidewaysOverflow(staff)).toEqual({ overflow: 0, widest: '' });
    await screenshot(staff, 'screens-dashboard-menu-open', '390', { fullPage: false });
    await staff.setViewportSize(DESKTOP);
    expect(await staff.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    await visible(settings);
  });

  it('the visitor pages and the sandbox view do not scroll sideways at 390 px', async () => {
    const context = await e2e().newContext({ viewport: PHONE, extraHTTPHeaders: { 'X-Forwarded-For': '192.0.2.91' } });
    const page = await context.newPage();
    const check = async (name: string) => {
      await networkQuiet(page);
      expect({ page: name, ...(await sidewaysOverflow(page)) }).toEqual({ page: name, overflow: 0, widest: '' });
      await screenshot(page, `screens-${name}`, '390');
      await page.setViewportSize(DESKTOP);
      await screenshot(page, `screens-${name}`, '1280');
      await page.setViewportSize(PHONE);
    };
    for (const [name, route] of [
      ['privacy', '/privacy'],
      ['terms', '/terms'],
      ['error', '/error?reason=access_denied'],
      ['visitor-not-found', '/no-such-page'],
      ['staff-login', '/admin/login'],
    ] as const) {
      await page.goto(url(route));
      await visible(page.getByRole('heading', { level: 1 }).first());
      await check(name);
    }
    await page.goto(url('/'));
    // the consent page names the server the visitor joins (the sandbox guild, read from Discord)
    await visible(page.getByRole('region', { name: 'The server you are joining' }).getByText(e2e().emulator.state.guild.name));
    await check('consent');
    await consentAndStart(e2e(), page);
    await signInOnDiscord(page, { username: 'phone-visitor' });
    await visible(page.getByRole('heading', { level: 1 }).first());
    await check('rules');
    await agreeToRules(e2e(), page);
    await check('success');
    await page.setViewportSize(DESKTOP);
    const channel = await completeInDiscord(e2e(), page, {
      userId: emulatorUser(e2e(), 'phone-visitor').id,
      replyText: "You're verified!",
      test: 'screens-journey',
    });
    await channel.setViewportSize(PHONE);
    await networkQuiet(channel);
    expect({ page: 'sandbox', ...(await sidewaysOverflow(channel)) }).toEqual({ page: 'sandbox', overflow: 0, widest: '' });
    await screenshot(channel, 'screens-sandbox', '390');
    await channel.setViewportSize(DESKTOP);
    saveForReadme(await screenshot(channel, 'screens-sandbox', '1280'), 'sandbox.png');
  });
});

/** Copies a screenshot to docs/screenshots/ for the README. */
function saveForReadme(file: string, name: string) {
  fs.mkdirSync(README_SHOTS, { recursive: true });
  fs.copyFileSync(file, path.join(README_SHOTS, name));
}
