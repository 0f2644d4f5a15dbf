/**
 * The sandbox view's slash-command box in Chromium: a staff member picks /lookup and
 * /manverify in the sandbox channel view, fills their options and reads the private replies,
 * and the Verified role lands in the sandbox guild; the view fits a 390 px phone.
 */
import type { Page } from 'playwright-core';
import { buildMember } from '../../src/test-support/factories';
import { eventually, screenshot, useE2E, visible } from './harness';

jest.setTimeout(90_000);

const TEST = 'sandbox command box';

describe('sandbox view: slash-command box (Chromium, sandbox mode)', () => {
  const e2e = useE2E();

  /** Picks a command in the box (the page reloads with its options) and waits for its Send button. */
  async function choose(page: Page, command: string) {
    await page.getByLabel('Slash command', { exact: true }).selectOption(command);
    await visible(page.getByRole('button', { name: `Send /${command}` }));
  }

  /** Nothing on the page is wider than the viewport (no sideways scrolling). */
  async function fitsWidth(page: Page) {
    const widths = await page.evaluate<{ page: number; viewport: number }>(
      '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
    );
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
  }

  it('runs /lookup and /manverify as the chosen staff member and shows the private replies', async () => {
    const { emulator, database } = e2e();
    const member = emulator.state.findUserByName('sandbox-member')!;
    const newcomer = emulator.state.findUserByName('sandbox-newcomer')!;
    await buildMember(database.db, { discordId: member.id, username: member.username, guildAccess: 'verified', status: 'verified' });
    await buildMember(database.db, { discordId: newcomer.id, username: newcomer.username, guildAccess: 'pending', rulesConfirmed: false });
    emulator.addGuildMember(newcomer.id, ['Unverified']);

    const page = await (await e2e().newContext()).newPage();
    await page.goto(emulator.sandboxUrl(emulator.guild.channelId('stream-general-chat')));
    // nobody chosen yet: no box, the view asks who you are
    await visible(page.getByText('Choose who you are to click buttons.'));
    expect(await page.getByRole('region', { name: 'Slash commands' }).count()).toBe(0);
    await page.getByLabel('Who am I').selectOption({ label: 'Sandbox Staff (@sandbox-staff)' });
    await page.getByRole('button', { name: 'Switch user' }).click();

    await choose(page, 'lookup');
    await page.locator('#command-option-user').selectOption(member.id);
    await page.getByRole('button', { name: 'Send /lookup' }).click();
    const lookupReply = page.locator('article', { has: page.getByText('used /lookup') });
    await visible(lookupReply.getByText('Only you can see this'));
    expect(await lookupReply.innerText()).toContain('sandbox-member');
    await screenshot(page, TEST, 'lookup reply 1280');

    await choose(page, 'manverify');
    await page.locator('#command-option-user').selectOption(newcomer.id);
    await page.getByRole('button', { name: 'Send /manverify' }).click();
    const manverifyReply = page.locator('article', { has: page.getByText('used /manverify') });
    await visible(manverifyReply.getByText('is now verified', { exact: false }));
    await e2e().drainOutbox();
    await eventually(
      () => emulator.state.memberRoleNames(newcomer.id),
      (roles) => roles.join() === 'Verified',
      'the newcomer to get the Verified role in place of Unverified',
    );

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await visible(page.getByRole('region', { name: 'Slash commands' }));
    await fitsWidth(page);
    await screenshot(page, TEST, 'manverify reply 390');
  });

  it('keeps a command hidden from a member without the permission it asks for', async () => {
    const { emulator } = e2e();
    const page = await (await e2e().newContext()).newPage();
    await page.goto(emulator.sandboxUrl(emulator.guild.channelId('stream-general-chat')));
    await page.getByLabel('Who am I').selectOption({ label: 'Sandbox Member (@sandbox-member)' });
    await page.getByRole('button', { name: 'Switch user' }).click();
    const picker = await visible(page.getByLabel('Slash command', { exact: true }));
    const offered = await picker.locator('option').allInnerTexts();
    expect(offered.some((text) => text.startsWith('/privacy'))).toBe(true);
    expect(offered.some((text) => text.startsWith('/lookup') || text.startsWith('/manverify'))).toBe(false);
    await screenshot(page, TEST, 'member picker 1280');
  });
});
