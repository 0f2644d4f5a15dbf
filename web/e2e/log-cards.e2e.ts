/**
 * The logs channel in the sandbox view (Chromium): a verification's line is an embed with
 * buttons; a staff member chosen in 'Who am I' clicks Verify, the member is verified (the
 * Verified role lands in the sandbox guild) and the message names who acted, its buttons
 * disabled. Screenshots at 1280 and 390 px; the view fits a phone.
 */
import type { Page } from 'playwright-core';
import { buildMember } from '../../src/test-support/factories';
import { eventually, screenshot, useE2E, visible } from './harness';

jest.setTimeout(90_000);

const TEST = 'logs channel cards';

describe('sandbox view: the logs channel cards (Chromium, sandbox mode)', () => {
  const e2e = useE2E();

  async function fitsWidth(page: Page) {
    const widths = await page.evaluate<{ page: number; viewport: number }>(
      '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
    );
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
  }

  it('shows a card with its buttons; Verify pressed by staff verifies the member and the card says who acted', async () => {
    const { emulator, database, handle } = e2e();
    const visitor = emulator.createUser({ username: 'vpn-visitor' });
    emulator.addGuildMember(visitor.id, ['Limited Access']);
    await buildMember(database.db, {
      discordId: visitor.id,
      username: 'vpn-visitor',
      status: 'limited_access',
      guildAccess: 'limited',
      usedVpn: true,
      vpnProvider: 'NordVPN',
    });
    const text = `🛡️ <@${visitor.id}> verified on the website behind a VPN (NordVPN): Limited Access only.`;
    await handle.services.outbox.enqueue(database.db, {
      kind: 'log_message',
      event: 'limited_access',
      discordId: visitor.id,
      text,
      card: { for: 'member', discordId: visitor.id },
    });
    await e2e().drainOutbox();

    const page = await (await e2e().newContext()).newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(emulator.sandboxUrl(emulator.guild.channelId('logs')));
    await page.getByLabel('Who am I').selectOption({ label: 'Sandbox Staff (@sandbox-staff)' });
    await page.getByRole('button', { name: 'Switch user' }).click();

    const card = page.locator('article', { has: page.getByText('verified on the website behind a VPN (NordVPN)') }).last();
    await visible(card.getByRole('button', { name: 'Verify' }));
    await visible(card.getByRole('button', { name: 'Deny / Kick' }));
    await visible(card.getByRole('button', { name: 'Ban' }));
    expect(await card.getByRole('link', { name: /Dashboard/ }).getAttribute('href')).toBe(
      `${handle.services.websiteUrl}/admin/user/${visitor.id}`,
    );
    await screenshot(page, TEST, 'card 1280');

    await card.getByRole('button', { name: 'Verify' }).click();
    const handled = page.locator('article', { has: page.getByText('verified on the website behind a VPN (NordVPN)') }).last();
    await visible(handled.getByText('Handled'));
    expect((await handled.innerText()).replace(/[\s·]+/g, ' ')).toContain('✅ Verified by @sandbox-staff (sandbox-staff)');
    expect(await handled.getByRole('button', { name: 'Verify' }).isDisabled()).toBe(true);
    const access = await database.query<{ guild_access: string }>('select guild_access from members where discord_id = $1', [visitor.id]);
    expect(access.rows[0]?.guild_access).toBe('verified');
    await e2e().drainOutbox();
    await eventually(
      () => emulator.state.memberRoleNames(visitor.id),
      (roles) => roles.includes('Verified') && !roles.includes('Limited Access'),
      'the Verified role in place of Limited Access',
    );
    await page.reload();
    await screenshot(page, TEST, 'handled 1280');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await visible(page.getByText('Handled').last());
    await fitsWidth(page);
    await screenshot(page, TEST, 'handled 390');
  });
});
