/**
 * Linked Roles in the sandbox: a member verifies, the server has a role requiring "Verified with
 * Gatekeeper", the sandbox view shows it not met until the member connects from /linked-roles
 * (the Linked Roles Verification URL), and met after; a staff member's /unverify then makes it
 * not met again (the kept grant updates the connection).
 */
import { eventually, heading, screenshot, useE2E, visible } from './harness';
import { agreeToRules, authorizePageUrl, completeInDiscord, consentAndStart, emulatorUser, signInOnDiscord } from './visitor-journey';

jest.setTimeout(90_000);

describe('Linked Roles (Chromium, sandbox mode)', () => {
  const e2e = useE2E({ TRUST_PROXY: 'loopback' });

  it("a verified member connects from the role menu and the sandbox shows the linked role's requirement met, and not met after /unverify", async () => {
    const test = 'linked-roles';
    const { handle, emulator } = e2e();
    await handle.services.settings.update({ type: 'staff', id: '1', name: 'Owner' }, { linkedRoles: true });
    const role = emulator.createRole({ name: 'Trusted' });
    emulator.setLinkedRole(role.id, [
      { key: 'verified', value: 1 },
      { key: 'not_alt', value: 1 },
    ]);

    const context = await e2e().newContext({ extraHTTPHeaders: { 'X-Forwarded-For': '192.0.2.40' } });
    const page = await context.newPage();
    await page.goto(`${e2e().url}/`);
    await consentAndStart(e2e(), page);
    await signInOnDiscord(page, { username: 'e2e-linked' });
    await agreeToRules(e2e(), page);
    const user = emulatorUser(e2e(), 'e2e-linked');
    const channel = await completeInDiscord(e2e(), page, { userId: user.id, replyText: "You're verified!" });
    await visible(channel.getByRole('region', { name: 'Linked roles' }).getByText('Trusted: connect Gatekeeper first'));
    await screenshot(channel, test, 'not-connected', { fullPage: false });

    // Discord's role menu sends the member to the Linked Roles Verification URL
    const linking = await context.newPage();
    await linking.goto(`${e2e().url}/linked-roles`);
    await linking.waitForURL(authorizePageUrl(e2e()));
    await visible(linking.getByText('Update your connection and metadata for the app'));
    await screenshot(linking, test, 'authorize', { fullPage: false });
    await signInOnDiscord(linking, { username: 'e2e-linked' });
    await heading(linking, 'Connected: Verified with Gatekeeper');
    await screenshot(linking, test, 'connected');
    await linking.setViewportSize({ width: 390, height: 780 });
    await screenshot(linking, test, 'connected-phone');

    expect(emulator.meetsLinkedRole(user.id, 'Trusted')).toBe(true);
    await channel.reload();
    await visible(channel.getByRole('region', { name: 'Linked roles' }).getByText('Trusted: requirement met'));
    await screenshot(channel, test, 'met', { fullPage: false });
    await channel.setViewportSize({ width: 390, height: 780 });
    await screenshot(channel, test, 'met-phone', { fullPage: false });

    // a staff member takes the verification away with /unverify in the sandbox's command box
    const staff = await (await e2e().newContext()).newPage();
    await staff.goto(emulator.sandboxUrl(emulator.guild.channelId('stream-general-chat')));
    await staff.getByLabel('Who am I').selectOption({ label: 'Sandbox Staff (@sandbox-staff)' });
    await staff.getByRole('button', { name: 'Switch user' }).click();
    await staff.getByLabel('Slash command', { exact: true }).selectOption('unverify');
    await visible(staff.getByRole('button', { name: 'Send /unverify' }));
    await staff.locator('#command-option-user').selectOption(user.id);
    await staff.getByRole('button', { name: 'Send /unverify' }).click();
    await visible(staff.locator('article', { has: staff.getByText('used /unverify') }));
    await e2e().drainOutbox();
    await eventually(
      () => emulator.meetsLinkedRole(user.id, 'Trusted'),
      (met) => !met,
      "the linked role's requirement to be no longer met after /unverify",
    );
    await channel.reload();
    await visible(channel.getByRole('region', { name: 'Linked roles' }).getByText('Trusted: requirement not met'));
    await screenshot(channel, test, 'unverified-phone', { fullPage: false });
  });
});
