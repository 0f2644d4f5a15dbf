/**
 * A new server where three strangers on three networks verify with the same stock phone
 * profile (every context of one Chromium shows the same device fingerprint; each context is
 * its own browser profile, with its own token). Sharing a common device is evidence staff may
 * read, never an accusation: nobody gets an alt badge or count, and each member's detail page
 * lists the others under the neutral heading, saying how common the shared profile is.
 */
import type { Page } from 'playwright-core';
import { seedTeam, TEAM } from '../../src/test-support/staff-test-kit';
import { eventually, heading, screenshot, useE2E, visible, type E2E } from './harness';
import { agreeToRules, consentAndStart, emulatorUser, signInOnDiscord } from './visitor-journey';

jest.setTimeout(120_000);

const HEADING = 'Shares a device profile or network with';

describe('weak evidence on a new server (Chromium, sandbox mode)', () => {
  const e2e = useE2E({ TRUST_PROXY: 'loopback' });

  /** One stranger's phone: its own browser profile on its own network, the same device model as everyone's. */
  const phoneOn = (ip: string) =>
    e2e().newContext({
      extraHTTPHeaders: { 'X-Forwarded-For': ip },
      timezoneId: 'America/New_York',
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
    });

  async function verify(env: E2E, page: Page, username: string): Promise<string> {
    await page.goto(`${env.url}/`);
    await consentAndStart(env, page);
    await signInOnDiscord(page, { username });
    await agreeToRules(env, page);
    await heading(page, 'Website Verification Complete! ✓');
    return emulatorUser(env, username).id;
  }

  it('three strangers sharing one stock phone profile: no alt badge for anyone, the shared profile listed as weak evidence', async () => {
    const test = 'weak-evidence';
    const strangers: { name: string; id: string }[] = [];
    for (const [name, ip] of [
      ['we-stranger-one', '192.0.2.61'],
      ['we-stranger-two', '100.70.1.8'],
      ['we-stranger-three', '100.71.2.9'],
    ] as const) {
      strangers.push({ name, id: await verify(e2e(), await (await phoneOn(ip)).newPage(), name) });
    }

    // nobody is counted as an alt, anywhere
    const { rows } = await e2e().database.query<{ username: string; alts_found: number; is_linked_as_alt: boolean }>(
      `select username, alts_found, is_linked_as_alt from members where username like 'we-stranger-%' order by id`,
    );
    expect(rows).toEqual(strangers.map((s) => ({ username: s.name, alts_found: 0, is_linked_as_alt: false })));

    await seedTeam(e2e().database.db);
    const staff = await e2e().newContext();
    const page = await staff.newPage();
    const login = await page.request.post(`${e2e().url}/api/staff/login`, {
      data: { username: TEAM.mod.username, password: TEAM.mod.password },
      headers: { Origin: e2e().url },
    });
    expect(login.status()).toBe(200);

    await page.goto(`${e2e().url}/admin`);
    await heading(page, 'Admin Dashboard');
    const card = (username: string) => page.getByRole('listitem').filter({ has: page.getByRole('link', { name: new RegExp(username) }) });
    for (const { name } of strangers) {
      await visible(card(name).getByText('Verified', { exact: true }));
      expect(
        await card(name)
          .getByText(/\d+ Alts?\b|Certain Alt|Suspected Alt/)
          .count(),
      ).toBe(0);
    }
    await screenshot(page, test, 'dashboard-1280');

    // the last stranger's page: the other two under the neutral heading, with how common the profile is
    const last = strangers[2]!;
    await page.goto(`${e2e().url}/admin/user/${last.id}`);
    const weak = page.getByRole('list', { name: HEADING });
    await visible(page.getByRole('heading', { name: HEADING }));
    for (const other of strangers.slice(0, 2)) await visible(weak.getByText(other.name, { exact: true }));
    await visible(
      weak
        .getByText(
          /^same device model(?: as \d+ other members?(?: on \d+ networks)?|, shown by no other member)(?:, with an? [a-zA-Z ]+ (?:no other member shows|only \d+ other members? shows?))? \(weak, not counted\)$/,
        )
        .first(),
    );
    expect(await page.getByRole('heading', { name: 'Identified Alternate Accounts' }).count()).toBe(0);
    expect(await page.getByText('Alt Accounts Found').locator('..').getByText('0', { exact: true }).count()).toBe(1);
    await screenshot(page, test, 'detail-1280', { fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    await visible(page.getByRole('heading', { name: HEADING }));
    await screenshot(page, test, 'detail-390', { fullPage: true });
    // no sideways scroll on a phone (the expression runs in Chromium: the e2e types have no DOM)
    const overflow = await eventually(
      () => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>,
      (n) => n <= 0,
      'no sideways scroll at 390 px',
    );
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
