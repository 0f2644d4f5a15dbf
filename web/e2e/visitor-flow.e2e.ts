/**
 * The visitor pages, end to end, in Chromium against the whole product in sandbox
 * mode (Discord emulator's sign-in page and channel view, proxycheck emulator, PGlite).
 *
 * Every browser context is one device: same Chromium → same fingerprint. Separate visitors
 * get separate client addresses (X-Forwarded-For, trusted via TRUST_PROXY) so that they are
 * not each other's alts; the alt scenario uses one context (same fingerprint, same address).
 */
import { eventually, heading, hidden, screenshot, toast, useE2E, visible } from './harness';
import {
  agreeToRules,
  authorizePageUrl,
  completeInDiscord,
  consentAndStart,
  emulatorUser,
  shownRoles,
  signInOnDiscord,
} from './visitor-journey';

jest.setTimeout(60_000);

describe('visitor flow (Chromium, sandbox mode)', () => {
  const e2e = useE2E({ TRUST_PROXY: 'loopback' });

  /** A residential, clean address of the proxycheck emulator (192.0.2.0/24 → not a proxy, US). */
  const visitorContext = (ip: string) =>
    e2e().newContext({ extraHTTPHeaders: { 'X-Forwarded-For': ip }, timezoneId: 'America/New_York', locale: 'en-US' });

  const memberRow = async (discordId: string) => {
    const { rows } = await e2e().database.query<{
      status: string;
      rules_confirmed: boolean;
      is_linked_as_alt: boolean;
      used_vpn: boolean;
      guild_access: string | null;
    }>('select status, rules_confirmed, is_linked_as_alt, used_vpn, guild_access from members where discord_id = $1', [discordId]);
    return rows[0];
  };

  it('a new visitor consents, signs in, agrees to the rules and gets the Verified role at the button', async () => {
    const test = 'visitor-verified';
    const context = await visitorContext('192.0.2.10');
    const page = await context.newPage();
    await page.goto(`${e2e().url}/`);

    // consent page: button disabled with the hint until the box is ticked
    await heading(page, 'Server Verification');
    await visible(page.getByRole('complementary', { name: 'Sandbox mode' }));
    const verify = page.getByRole('button', { name: 'Verify with Discord' });
    expect(await verify.isDisabled()).toBe(true);
    await visible(page.getByText('Please check the consent box above to continue', { exact: true }));
    await visible(page.getByRole('link', { name: 'Terms of Service' }).first());
    await visible(page.getByRole('link', { name: 'Privacy Policy' }).first());
    await screenshot(page, test, '00-consent');
    await page.getByRole('checkbox').check();
    expect(await verify.isEnabled()).toBe(true);
    await hidden(page.getByText('Please check the consent box above to continue', { exact: true }));
    await page.getByRole('checkbox').uncheck();
    expect(await verify.isDisabled()).toBe(true);

    await consentAndStart(e2e(), page, { test });
    await signInOnDiscord(page, { username: 'e2e-visitor', test });
    await agreeToRules(e2e(), page, test);

    await heading(page, 'Website Verification Complete! ✓');
    await visible(page.getByText("You've been added to the Discord server!", { exact: true }));
    await visible(page.getByRole('heading', { name: 'Finish in Discord' }));
    expect(await page.getByRole('heading', { name: 'Finish in Discord' }).locator('xpath=..').getByRole('listitem').count()).toBe(4);
    await visible(page.getByRole('button', { name: 'Close This Window' }));
    await visible(page.getByRole('button', { name: 'Open Verification Channel' }));
    await screenshot(page, test, '05-success');

    const user = emulatorUser(e2e(), 'e2e-visitor');
    expect(await memberRow(user.id)).toMatchObject({ status: 'verified', rules_confirmed: true, is_linked_as_alt: false, used_vpn: false });

    const channel = await completeInDiscord(e2e(), page, { userId: user.id, replyText: "You're verified!", test });
    await e2e().drainOutbox();
    await eventually(
      () => shownRoles(channel),
      (roles) => roles.join() === 'Verified',
      "the sandbox view's roles to read Verified",
    );
    await screenshot(channel, test, '07-discord-verified');
    expect(e2e().emulator.state.memberRoleNames(user.id)).toEqual(['Verified']);
    expect(await memberRow(user.id)).toMatchObject({ guild_access: 'verified' });
  });

  it('a visitor on a VPN sees the Limited Access page and gets only the Limited Access role', async () => {
    const test = 'visitor-vpn';
    const context = await visitorContext('192.0.2.20');
    const page = await context.newPage();
    await page.goto(`${e2e().url}/`);

    await consentAndStart(e2e(), page);
    await signInOnDiscord(page, { username: 'e2e-vpn-visitor', vpn: true, test });
    await agreeToRules(e2e(), page);

    await heading(page, 'Website Step Complete - Limited Access Only');
    const warning = page.getByRole('note').filter({ hasText: 'VPN or proxy detected' });
    await visible(warning);
    await visible(warning.getByText('Sandbox VPN', { exact: true }));
    await visible(warning.getByText('#raffle-confirmation-chat', { exact: true }));
    await visible(warning.getByText('#stream-general-chat', { exact: true }));
    await visible(warning.getByText('To get full access, disconnect your VPN and verify again.'));
    expect(await page.getByText('Website Verification Complete! ✓').count()).toBe(0);
    await screenshot(page, test, '05-success-limited');

    const user = emulatorUser(e2e(), 'e2e-vpn-visitor');
    expect(await memberRow(user.id)).toMatchObject({ status: 'limited_access', used_vpn: true });

    const channel = await completeInDiscord(e2e(), page, { userId: user.id, replyText: 'you have Limited Access', test });
    await e2e().drainOutbox();
    await eventually(
      () => shownRoles(channel),
      (roles) => roles.join() === 'Limited Access',
      "the sandbox view's roles to read Limited Access",
    );
    await screenshot(channel, test, '07-discord-limited');
    expect(e2e().emulator.state.memberRoleNames(user.id)).toEqual(['Limited Access']);
  });

  it('a second account from the same browser is linked as a certain alt and denied at the button', async () => {
    const test = 'visitor-alt';
    // one context = one device on one address (no X-Forwarded-For: the real 127.0.0.1)
    const context = await e2e().newContext();
    const page = await context.newPage();

    // the main account verifies fully
    await page.goto(`${e2e().url}/`);
    await consentAndStart(e2e(), page);
    await signInOnDiscord(page, { username: 'e2e-main-account' });
    await agreeToRules(e2e(), page);
    await heading(page, 'Website Verification Complete! ✓');
    const main = emulatorUser(e2e(), 'e2e-main-account');
    const mainChannel = await completeInDiscord(e2e(), page, { userId: main.id, replyText: "You're verified!" });
    await e2e().drainOutbox();
    await eventually(
      () => shownRoles(mainChannel),
      (roles) => roles.join() === 'Verified',
      'the main account to be Verified',
    );
    if (mainChannel !== page) await mainChannel.close();

    // then a second account, same browser
    await page.goto(`${e2e().url}/`);
    await consentAndStart(e2e(), page);
    await signInOnDiscord(page, { username: 'e2e-second-account', test });
    await agreeToRules(e2e(), page);
    // the website already tells a certain alt: the denial and the way to appeal, never the success text
    await heading(page, 'Verification Denied');
    await visible(page.getByRole('button', { name: 'Ask staff to review' }));
    expect(await page.getByText('Website Verification Complete! ✓').count()).toBe(0);
    await screenshot(page, test, '05-denied');

    const alt = emulatorUser(e2e(), 'e2e-second-account');
    expect(await memberRow(alt.id)).toMatchObject({ is_linked_as_alt: true, rules_confirmed: true });
    const { rows: links } = await e2e().database.query<{ confidence: string; main: string }>(
      `select l.confidence, m.discord_id as main from alt_links l join members m on m.id = l.main_member_id join members a on a.id = l.alt_member_id where a.discord_id = $1`,
      [alt.id],
    );
    expect(links).toContainEqual({ confidence: 'certain', main: main.id });

    // the button denies too, and offers the appeal
    await page.goto(e2e().emulator.sandboxUrl(e2e().emulator.guild.channelId('verification')));
    const channel = await completeInDiscord(e2e(), page, { userId: alt.id, replyText: 'Verification denied', test });
    await visible(
      channel.getByRole('article').filter({ hasText: 'Verification denied' }).getByRole('link', { name: 'Ask staff to review' }),
    );
    await screenshot(channel, test, '07-discord-denied');
    await e2e().drainOutbox();
    // still only Unverified after the outbox ran: no Verified role for the alt
    await channel.reload();
    expect(await shownRoles(channel)).toEqual(['Unverified']);
    expect(e2e().emulator.state.memberRoleNames(alt.id)).toEqual(['Unverified']);
    expect(e2e().emulator.state.memberRoleNames(main.id)).toEqual(['Verified']);
    expect(await memberRow(alt.id)).toMatchObject({ guild_access: 'denied' });

    // the same sandbox view, switched to the main account ('Who am I'), shows its Verified role
    await channel.getByLabel('Who am I').selectOption(main.id);
    await channel.getByRole('button', { name: 'Switch user' }).click();
    await eventually(
      () => channel.getByLabel('Who am I').inputValue(),
      (id) => id === main.id,
      "'Who am I' to be the main account",
    );
    expect(await shownRoles(channel)).toEqual(['Verified']);
  });

  it('shows a toast and stays on the consent page when recording consent fails', async () => {
    const test = 'visitor-consent-failure';
    const context = await visitorContext('192.0.2.30');
    const page = await context.newPage();
    await page.route('**/api/consent', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"boom"}' })
        : route.continue(),
    );
    await page.goto(`${e2e().url}/`);
    await heading(page, 'Server Verification');
    await page.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Verify with Discord' }).click();

    await toast(page, 'Failed to record consent. Please try again.');
    await toast(page, 'Error');
    await screenshot(page, test, '01-toast');
    expect(new URL(page.url()).pathname).toBe('/');
    await heading(page, 'Server Verification');
    expect(await page.getByRole('button', { name: 'Verify with Discord' }).isEnabled()).toBe(true);

    // once the server answers again, the same page goes on to Discord's sign-in
    await page.unroute('**/api/consent');
    await page.getByRole('button', { name: 'Verify with Discord' }).click();
    await page.waitForURL(authorizePageUrl(e2e()));
  });

  it('lands on the failure page when the visitor cancels on the Discord sign-in page', async () => {
    const test = 'visitor-oauth-denied';
    const context = await visitorContext('192.0.2.40');
    const page = await context.newPage();
    await page.goto(`${e2e().url}/`);
    await consentAndStart(e2e(), page);
    await screenshot(page, test, '01-authorize');
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.waitForURL(`${e2e().url}/error`);
    await heading(page, 'Verification Failed');
    await visible(page.getByText("We couldn't verify your account. Please contact server staff for assistance.", { exact: true }));
    await screenshot(page, test, '02-error');
    await page.getByRole('button', { name: 'Try Again' }).click();
    await page.waitForURL(`${e2e().url}/`);
    await heading(page, 'Server Verification');
  });

  it('goes to the failure page when confirming the rules fails', async () => {
    const context = await visitorContext('192.0.2.60');
    const page = await context.newPage();
    await page.goto(`${e2e().url}/`);
    await consentAndStart(e2e(), page);
    await signInOnDiscord(page, { username: 'e2e-rules-failure' });
    await page.waitForURL(`${e2e().url}/rules`);
    await page.route('**/api/rules/confirm', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"boom"}' }),
    );
    await page.getByRole('button', { name: 'I Agree to the Rules' }).click();
    await page.waitForURL(`${e2e().url}/error`);
    await heading(page, 'Verification Failed');
    await screenshot(page, 'visitor-rules-failure', '01-error');
    const user = emulatorUser(e2e(), 'e2e-rules-failure');
    expect(await memberRow(user.id)).toMatchObject({ rules_confirmed: false });
  });

  it('shows the 404 card on an unknown path', async () => {
    const context = await visitorContext('192.0.2.50');
    const page = await context.newPage();
    const response = await page.goto(`${e2e().url}/no/such/page`);
    expect(response?.ok()).toBe(true); // the SPA answers every path; the card says 404
    await heading(page, '404 Page Not Found');
    await screenshot(page, 'visitor-not-found', '01-404');
    await page.getByRole('link', { name: 'Go to verification' }).click();
    await heading(page, 'Server Verification');
  });
});
