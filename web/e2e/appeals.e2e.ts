/**
 * Appeals end to end (Chromium, sandbox mode): a visitor flagged as a certain alt learns it on
 * the website and appeals, staff approve and the member gets the Verified role in the sandbox
 * guild; a Limited Access visitor appeals, staff reject, and the visitor, signing in with
 * Discord again from a fresh browser, reads the reason. Then staff find both under 'Decided', on
 * the member's page and in the audit log, as sentences with names.
 */
import type { Page } from 'playwright-core';
import { seedStaffAccount } from '../../src/test-support/staff-test-kit';
import { eventually, heading, screenshot, toast, useE2E, visible } from './harness';
import { agreeToRules, authorizePageUrl, consentAndStart, emulatorUser, signInOnDiscord } from './visitor-journey';

jest.setTimeout(90_000);

const STAFF = { username: 'appeal-mod', password: 'appeal-mod-password' };
const PHONE = { width: 360, height: 780 };
const NARROW = { width: 390, height: 844 };

describe('appeals (Chromium, sandbox mode)', () => {
  const e2e = useE2E({ TRUST_PROXY: 'loopback' });

  beforeAll(async () => {
    // a super admin, so the audit log can be read at the end
    await seedStaffAccount(e2e().database.db, { ...STAFF, isSuperAdmin: true });
  });

  /** Screenshots of the page at 1280 px and at 360 px (phone), back to 1280 after. */
  async function bothWidths(page: Page, test: string, step: string) {
    await screenshot(page, test, `${step}-1280`);
    await page.setViewportSize(PHONE);
    await screenshot(page, test, `${step}-360`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function staffPage(): Promise<Page> {
    const page = await (await e2e().newContext()).newPage();
    await page.goto(`${e2e().url}/admin/login`);
    await heading(page, 'Staff Login');
    await page.getByLabel('Username').fill(STAFF.username);
    await page.getByLabel('Password').fill(STAFF.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL(`${e2e().url}/admin`);
    await heading(page, 'Admin Dashboard');
    return page;
  }

  /** From the dashboard: the header's 'Appeals' shows `open`, and leads to the queue. */
  async function openQueue(page: Page, open: number) {
    await page.goto(`${e2e().url}/admin`);
    const link = await visible(page.getByRole('link', { name: `Appeals, ${open} open` }));
    await bothWidths(page, 'appeal-dashboard', `header-${open}-open`);
    await link.click();
    await page.waitForURL(`${e2e().url}/admin/appeals`);
    await heading(page, 'Appeals');
  }

  async function fileAppeal(page: Page, message: string, test: string) {
    await page.waitForURL(`${e2e().url}/appeal`);
    await heading(page, 'Ask Staff to Review');
    // bad input is refused in the page before anything is sent
    await page.getByRole('button', { name: 'Ask staff to review' }).click();
    await visible(page.getByText('The message cannot be empty', { exact: true }));
    await page.getByLabel(/Tell staff why/).fill(message);
    await bothWidths(page, test, '02-appeal-form');
    await page.getByRole('button', { name: 'Ask staff to review' }).click();
    await visible(page.getByText('Your request is waiting for staff', { exact: true }));
    await visible(page.getByText(message, { exact: true }));
    await bothWidths(page, test, '03-appeal-waiting');
  }

  it('a flagged visitor sees the denial, appeals, and staff approval grants the Verified role', async () => {
    const test = 'appeal-alt-approved';
    // one context = one device on one address: the second account is a certain alt of the first
    const visitor = await (await e2e().newContext()).newPage();
    await visitor.goto(`${e2e().url}/`);
    await consentAndStart(e2e(), visitor);
    await signInOnDiscord(visitor, { username: 'e2e-appeal-main' });
    await agreeToRules(e2e(), visitor);
    await heading(visitor, 'Website Verification Complete! ✓');

    await visitor.goto(`${e2e().url}/`);
    await consentAndStart(e2e(), visitor);
    await signInOnDiscord(visitor, { username: 'e2e-appeal-alt' });
    await agreeToRules(e2e(), visitor);
    // the outcome on the web: the failure-style card, never the success text
    await heading(visitor, 'Verification Denied');
    await visible(
      visitor.getByText(
        "This Discord account is linked to another account that is already verified on this server, so it can't be given access.",
        { exact: true },
      ),
    );
    expect(await visitor.getByText('Website Verification Complete! ✓').count()).toBe(0);
    expect(await visitor.getByText("You've been added to the Discord server!").count()).toBe(0);
    await bothWidths(visitor, test, '01-outcome-denied');
    await visitor.getByRole('button', { name: 'Ask staff to review' }).click();
    const message = 'My brother and I share this computer. <3 This is my own account.';
    await fileAppeal(visitor, message, test);

    const alt = emulatorUser(e2e(), 'e2e-appeal-alt');
    await e2e().drainOutbox();
    expect(e2e().emulator.state.memberRoleNames(alt.id)).toEqual(['Unverified']);

    const staff = await staffPage();
    await openQueue(staff, 1);
    const card = staff.getByRole('listitem').filter({ hasText: 'e2e-appeal-alt' }).first();
    await visible(card.getByRole('list', { name: 'Status' }).getByText('Certain Alt', { exact: true }));
    await visible(card.getByText(message, { exact: true }));
    // the link named with why it was made and how strong it is
    await visible(card.getByText(/^Linked to e2e-appeal-main \(\d+\): same browser.*\(certain\)$/));
    await bothWidths(staff, test, '04-staff-queue');
    await card.getByRole('button', { name: 'Approve' }).click();
    // before approving: what it will do, from the server
    await visible(
      staff
        .getByRole('alertdialog')
        .getByText('Dismisses the alt link as not the same person: @e2e-appeal-main (certain)', { exact: true }),
    );
    await staff.getByRole('alertdialog').getByRole('button', { name: 'Approve' }).click();
    await toast(staff, 'Appeal approved');
    await visible(staff.getByText('No open appeals', { exact: true }));

    // the role goes through the outbox to the sandbox guild
    await e2e().drainOutbox();
    await eventually(
      () => e2e().emulator.state.memberRoleNames(alt.id),
      (roles) => roles.join() === 'Verified',
      'the alt to have the Verified role',
    );

    await visitor.reload();
    await visible(visitor.getByText('Staff approved your request', { exact: true }));
    await screenshot(visitor, test, '05-appeal-approved');
  });

  it('a Limited Access visitor appeals, staff reject, and the visitor reads the reason after signing in again', async () => {
    const test = 'appeal-limited-rejected';
    const visitorContext = await e2e().newContext({
      extraHTTPHeaders: { 'X-Forwarded-For': '192.0.2.77' },
      timezoneId: 'America/New_York',
      locale: 'en-US',
    });
    const visitor = await visitorContext.newPage();
    await visitor.goto(`${e2e().url}/`);
    await consentAndStart(e2e(), visitor);
    await signInOnDiscord(visitor, { username: 'e2e-appeal-vpn', vpn: true });
    await agreeToRules(e2e(), visitor);
    await heading(visitor, 'Website Step Complete - Limited Access Only');
    await bothWidths(visitor, test, '01-outcome-limited');
    await visitor.getByRole('button', { name: 'Ask staff to review' }).click();
    await fileAppeal(visitor, 'I am on my university network, not a VPN.', test);

    const staff = await staffPage();
    await openQueue(staff, 1);
    const card = staff.getByRole('listitem').filter({ hasText: 'e2e-appeal-vpn' }).first();
    await visible(card.getByText('VPN or proxy: Sandbox VPN', { exact: true }));
    await card.getByRole('button', { name: 'Reject with reason' }).click();
    await card.getByRole('button', { name: 'Reject appeal' }).click();
    await visible(card.getByText('The reason cannot be empty', { exact: true }));
    const reason = 'The address belongs to a commercial VPN provider. Disconnect it and verify again.';
    await card.getByLabel('Reason (the visitor sees it)').fill(reason);
    await card.getByRole('button', { name: 'Reject appeal' }).click();
    await toast(staff, 'Appeal rejected');
    await visible(staff.getByText('No open appeals', { exact: true }));

    // a fresh browser: no session, so the page asks for a Discord sign-in that verifies nothing
    const fresh = await (await e2e().newContext({ extraHTTPHeaders: { 'X-Forwarded-For': '192.0.2.78' } })).newPage();
    await fresh.goto(`${e2e().url}/appeal`);
    await heading(fresh, 'Ask Staff to Review');
    await fresh.getByRole('button', { name: 'Sign in with Discord again' }).click();
    await fresh.waitForURL(authorizePageUrl(e2e()));
    await signInOnDiscord(fresh, { username: 'e2e-appeal-vpn' });
    await fresh.waitForURL(`${e2e().url}/appeal`);
    await visible(fresh.getByText('Staff reviewed your request and kept the decision', { exact: true }));
    await visible(fresh.getByText(reason, { exact: true }));
    await bothWidths(fresh, test, '02-appeal-rejected');

    // the verdict stands: still Limited Access, one attempt only (the appeal sign-in verified nothing)
    const user = emulatorUser(e2e(), 'e2e-appeal-vpn');
    const { rows } = await e2e().database.query<{ status: string; attempts: number }>(
      `select m.status, (select count(*)::int from verification_attempts a where a.member_id = m.id) as attempts from members m where m.discord_id = $1`,
      [user.id],
    );
    expect(rows).toEqual([{ status: 'limited_access', attempts: 1 }]);
  });

  it('staff find the decided appeals under Decided, on the member page and in the audit log, at 1280 and 390 px', async () => {
    const test = 'appeal-history';
    const staff = await staffPage();
    const alt = emulatorUser(e2e(), 'e2e-appeal-alt');
    /** Both widths, each without sideways scrolling. */
    async function look(step: string) {
      for (const viewport of [{ width: 1280, height: 900 }, NARROW]) {
        await staff.setViewportSize(viewport);
        expect(await staff.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
        await screenshot(staff, test, `${step}-${viewport.width}`);
      }
      await staff.setViewportSize({ width: 1280, height: 900 });
    }

    await staff.goto(`${e2e().url}/admin/appeals`);
    await heading(staff, 'Appeals');
    await staff.getByRole('button', { name: 'Decided' }).click();
    const decisions = staff.getByTestId('appeal-decision');
    await visible(decisions.nth(1));
    const texts = await decisions.allInnerTexts();
    expect(texts[0]).toMatch(/^Rejected by appeal-mod on /);
    expect(texts[1]).toMatch(/^Approved by appeal-mod on /);
    expect(texts[1]).toContain('Dismissed the alt link as not the same person: @e2e-appeal-main (certain)');
    await look('01-decided');

    await staff.goto(`${e2e().url}/admin/user/${alt.id}`);
    const history = await visible(staff.getByRole('list', { name: 'Appeals of this member' }));
    expect(await history.innerText()).toMatch(/Approved by appeal-mod on /);
    await look('02-member-page');

    await staff.goto(`${e2e().url}/admin/audit?member=${alt.id}`);
    await heading(staff, 'Audit Log');
    const sentences = staff.getByTestId('audit-sentence');
    await visible(sentences.first());
    const read = await sentences.allInnerTexts();
    expect(read.some((line) => /appeal-mod approved the appeal #\d+ of .*@e2e-appeal-alt/s.test(line))).toBe(true);
    expect(read.some((line) => /appeal-mod dismissed every alt link of .*@e2e-appeal-alt\s*: not the same person/s.test(line))).toBe(true);
    expect(read.some((line) => /@e2e-appeal-alt\s*appealed their standing \(Certain Alt\)/s.test(line))).toBe(true);
    // no codes, no raw details
    expect(await staff.getByText('appeal.approved').count()).toBe(0);
    await visible(staff.getByRole('link', { name: /@e2e-appeal-alt/ }).first());
    await look('03-audit-log');
  });
});
