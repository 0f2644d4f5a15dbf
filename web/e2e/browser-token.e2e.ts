/**
 * The same-browser signal end to end, in Chromium against the whole product (sandbox mode).
 *
 * Every browser context of one Chromium shows the same device fingerprint, and each context
 * is its own browser profile (its own cookies and local storage, like a private window).
 * So two contexts on one address are "two people with the same device model at one
 * address": certain only while no other member shows that device profile, possible
 * once many members on other networks do; and two Discord accounts in ONE context share
 * the browser token, which is certain however popular the device.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { heading, screenshot, useE2E, type E2E } from './harness';
import { agreeToRules, consentAndStart, emulatorUser, signInOnDiscord } from './visitor-journey';

jest.setTimeout(120_000);

describe('same-browser token (Chromium, sandbox mode)', () => {
  const e2e = useE2E({ TRUST_PROXY: 'loopback' });

  /** One browser profile on a residential, clean address of the proxycheck emulator (192.0.2.0/24). */
  const profileOn = (ip: string, width = 1280) =>
    e2e().newContext({
      extraHTTPHeaders: { 'X-Forwarded-For': ip },
      timezoneId: 'America/New_York',
      locale: 'en-US',
      viewport: { width, height: 900 },
    });

  /**
   * Consent, sign in as a new Discord account, agree to the rules; then the outcome page: the
   * success card, or for a certain alt the denial (the website says so before the button does).
   */
  async function verify(env: E2E, page: Page, username: string, options: { test?: string; outcome?: 'verified' | 'denied' } = {}) {
    await page.goto(`${env.url}/`);
    await consentAndStart(env, page, options.test ? { test: options.test } : undefined);
    await signInOnDiscord(page, { username });
    await agreeToRules(env, page);
    await heading(page, options.outcome === 'denied' ? 'Verification Denied' : 'Website Verification Complete! ✓');
    return emulatorUser(env, username).id;
  }

  async function link(a: string, b: string) {
    const { rows } = await e2e().database.query<{ confidence: string; detection_method: string }>(
      `select l.confidence, l.detection_method from alt_links l join members m on m.id = l.main_member_id join members x on x.id = l.alt_member_id
        where (m.discord_id = $1 and x.discord_id = $2) or (m.discord_id = $2 and x.discord_id = $1)`,
      [a, b],
    );
    return rows[0] ?? null;
  }

  async function browserCookie(context: BrowserContext) {
    return (await context.cookies()).find((c) => c.name === 'gk_browser');
  }

  it('two browser profiles on one address: certain while nobody else shows the device profile, below certain once many members elsewhere do, certain again with the same browser token', async () => {
    // 1. nobody else has this browser's device profile yet (this test runs first): two profiles on one address are certain
    const first = await (await profileOn('192.0.2.20')).newPage();
    const second = await (await profileOn('192.0.2.20')).newPage();
    const a = await verify(e2e(), first, 'bt-rare-a');
    const b = await verify(e2e(), second, 'bt-rare-b', { outcome: 'denied' });
    expect(await link(a, b)).toEqual({ confidence: 'certain', detection_method: 'both' });

    // 2. many members on other networks show this browser's device profile (the same fingerprint and components)
    const others = 40;
    await e2e().database.query(
      `with device as (
         select a.* from verification_attempts a join members m on m.id = a.member_id where m.discord_id = $1 limit 1
       ), seeded as (
         insert into members (discord_id, username) select (7100000000000000 + g)::text, 'bt-seeded-' || g from generate_series(1, $2::int) as g returning id
       )
       insert into verification_attempts (member_id, ip_hash, network_hash, fingerprint_hash, canvas_hash, webgl_hash, audio_hash, fonts_hash, screen_hash,
                                          timezone_hash, language_hash, platform_hash, hardware_hash, outcome)
       select s.id, md5('seed-ip-' || s.id), md5('seed-net-' || s.id), d.fingerprint_hash, d.canvas_hash, d.webgl_hash, d.audio_hash, d.fonts_hash, d.screen_hash,
              d.timezone_hash, d.language_hash, d.platform_hash, d.hardware_hash, 'verified'
       from seeded s cross join device d`,
      [a, others],
    );

    // two separate browser profiles (separate contexts: separate tokens) on one new address
    const sibling1 = await profileOn('192.0.2.30');
    const sibling2 = await profileOn('192.0.2.30');
    const c = await verify(e2e(), await sibling1.newPage(), 'bt-popular-c');
    const dPage = await sibling2.newPage();
    const d = await verify(e2e(), dPage, 'bt-popular-d');
    expect((await browserCookie(sibling1))!.value).not.toBe((await browserCookie(sibling2))!.value);
    const siblings = await link(c, d);
    expect(siblings).not.toBeNull();
    expect(siblings!.confidence).not.toBe('certain');
    // possible, never a badge (it was medium): the same fingerprint on one home address is in P8 more often
    // siblings with the same phone than one person's two accounts, under the nine in ten the badge tier needs
    expect(siblings).toEqual({ confidence: 'possible', detection_method: 'both' });

    // 3. a second Discord account in the same browser profile as d: the same token, certain however popular the device
    const e = await verify(e2e(), dPage, 'bt-popular-e', { test: 'browser-token-same-profile', outcome: 'denied' });
    expect(await link(d, e)).toEqual({ confidence: 'certain', detection_method: 'browser' });
    expect((await link(c, e))?.confidence).toBe('possible');
    const { rows } = await e2e().database.query<{ is_linked_as_alt: boolean }>(
      'select is_linked_as_alt from members where discord_id = $1',
      [e],
    );
    expect(rows[0]!.is_linked_as_alt).toBe(true);
  });

  it("sets the token at consent only: an HttpOnly cookie and the page's own copy, the same value, kept as a hash", async () => {
    const context = await profileOn('192.0.2.40');
    const page = await context.newPage();
    await page.goto(`${e2e().url}/`);
    await heading(page, 'Server Verification');
    await screenshot(page, 'browser-token', '01-consent-1280');
    expect(await browserCookie(context)).toBeUndefined();
    const id = await verify(e2e(), page, 'bt-cookie-owner');
    const cookie = await browserCookie(context);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(360 * 24 * 3600 * 1000);
    // the page's copy, read in the page (the e2e types have no DOM: the expression runs in Chromium)
    expect(await page.evaluate('window.localStorage.getItem("gk_browser")')).toBe(cookie!.value);
    // stored only as a keyed hash, never the value
    const { rows } = await e2e().database.query<{ browser_token_hash: string | null }>(
      'select a.browser_token_hash from verification_attempts a join members m on m.id = a.member_id where m.discord_id = $1',
      [id],
    );
    expect(rows[0]!.browser_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(cookie!.value);

    const narrow = await profileOn('192.0.2.41', 360);
    const small = await narrow.newPage();
    await small.goto(`${e2e().url}/`);
    await heading(small, 'Server Verification');
    await screenshot(small, 'browser-token', '02-consent-360');
    await small.goto(`${e2e().url}/privacy`);
    await small.getByText('A browser token hash:').waitFor();
    await screenshot(small, 'browser-token', '03-privacy-360');
    await page.goto(`${e2e().url}/privacy`);
    await page.getByText('A browser token hash:').waitFor();
    await screenshot(page, 'browser-token', '04-privacy-1280');
  });

  it('ignores a tampered token cookie: no error, a fresh token, no link by the token', async () => {
    const context = await profileOn('192.0.2.50');
    await context.addCookies([{ name: 'gk_browser', value: 'tampered<>value', url: e2e().url }]);
    const page = await context.newPage();
    const id = await verify(e2e(), page, 'bt-tampered');
    const cookie = await browserCookie(context);
    expect(cookie!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { rows } = await e2e().database.query<{ n: number }>(
      `select count(*)::int as n from alt_links l join members m on m.id in (l.main_member_id, l.alt_member_id) where m.discord_id = $1 and l.detection_method = 'browser'`,
      [id],
    );
    expect(rows[0]!.n).toBe(0);
  });
});
