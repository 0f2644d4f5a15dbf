/**
 * Steps of the visitor journey shared by the e2e files: the consent page, the emulator's
 * sign-in page, the rules page and the sandbox channel view.
 */
import type { Page } from 'playwright-core';
import { eventually, followLink, heading, screenshot, visible, type E2E } from './harness';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const authorizePageUrl = (e2e: E2E) => new RegExp(`^${escapeRegExp(e2e.emulator.url)}/oauth2/authorize`);
export const sandboxChannelUrl = /\/sandbox\/channels\/\d+/;

/** On `/`: ticks consent and clicks 'Verify with Discord'; resolves on the emulator's authorize page. */
export async function consentAndStart(e2e: E2E, page: Page, shots?: { test: string }): Promise<void> {
  await heading(page, 'Server Verification');
  await page.getByRole('checkbox').check();
  const verify = page.getByRole('button', { name: 'Verify with Discord' });
  await eventually(() => verify.isEnabled(), Boolean, "'Verify with Discord' enabled after ticking consent");
  if (shots) await screenshot(page, shots.test, '01-consent-ticked');
  await verify.click();
  await page.waitForURL(authorizePageUrl(e2e));
  await visible(page.getByRole('heading', { name: /wants to access your account/ }));
}

/** On the emulator's authorize page: creates (or reuses) `username`, optionally "on a VPN", and authorizes. */
export async function signInOnDiscord(page: Page, input: { username: string; vpn?: boolean; test?: string }): Promise<void> {
  await page.getByLabel('New username').fill(input.username);
  if (input.vpn) await page.getByLabel("I'm on a VPN").check();
  if (input.test) await screenshot(page, input.test, '02-discord-authorize');
  await page.getByRole('button', { name: 'Authorize' }).click();
}

/** On /rules: clicks 'I Agree to the Rules', checks 'Confirming...' shows while the call runs, resolves on /success. */
export async function agreeToRules(e2e: E2E, page: Page, test?: string): Promise<void> {
  await page.waitForURL(`${e2e.url}/rules`);
  await heading(page, 'Server Rules & Guidelines');
  for (const rule of [
    'Be Respectful',
    'No Spam or Self-Promotion',
    "Follow Discord's Terms of Service",
    'Keep Content Appropriate',
    'Listen to Moderators',
  ]) {
    await visible(page.getByRole('heading', { name: rule, exact: true }));
  }
  if (test) await screenshot(page, test, '03-rules');
  // hold the confirm call a moment so the loading state can be seen (and photographed)
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/rules/confirm', async (route) => {
    await held;
    await route.continue();
  });
  try {
    await page.getByRole('button', { name: 'I Agree to the Rules' }).click();
    await visible(page.getByRole('button', { name: 'Confirming...' }));
    if (test) await screenshot(page, test, '04-rules-confirming');
  } finally {
    release();
  }
  await page.waitForURL(`${e2e.url}/success`);
  await page.unroute('**/api/rules/confirm');
}

/** The emulator user created on the sign-in page. */
export function emulatorUser(e2e: E2E, username: string) {
  const user = e2e.emulator.state.findUserByName(username);
  if (!user) throw new Error(`no emulator user named ${username}`);
  return user;
}

/** The role names the sandbox view shows in its 'Your roles' region. */
export async function shownRoles(page: Page): Promise<string[]> {
  const region = page.getByRole('region', { name: 'Your roles' });
  return (await region.locator('.role').allTextContents()).map((name) => name.trim()).sort();
}

/**
 * On /success: clicks 'Open Verification Channel' (same tab or popup), makes sure the sandbox
 * view acts as `userId` ('Who am I'), clicks 'Complete Verification!' and waits for the bot's
 * ephemeral reply containing `replyText`. Returns the sandbox page.
 */
export async function completeInDiscord(e2e: E2E, page: Page, input: { userId: string; replyText: string; test?: string }): Promise<Page> {
  // a denied visitor's page has no channel button: such a test opens the channel itself first
  const channel = sandboxChannelUrl.test(page.url())
    ? page
    : await followLink(
        page,
        async () => (await visible(page.getByRole('button', { name: 'Open Verification Channel' }))).click(),
        sandboxChannelUrl,
      );
  await visible(channel.getByRole('heading', { name: '# verification' }));
  expect(channel.url()).toContain(e2e.emulator.sandboxUrl(e2e.emulator.guild.channelId('verification')));

  const whoAmI = channel.getByLabel('Who am I');
  if ((await whoAmI.inputValue()) !== input.userId) {
    await whoAmI.selectOption(input.userId);
    await channel.getByRole('button', { name: 'Switch user' }).click();
    await channel.waitForLoadState('domcontentloaded');
  }
  expect(await channel.getByLabel('Who am I').inputValue()).toBe(input.userId);
  // joined by the website step: the member is in the guild with the Unverified role
  await e2e.drainOutbox();
  await eventually(
    () => shownRoles(channel),
    (roles) => roles.join() === 'Unverified',
    "the sandbox view's roles to read Unverified",
  );
  if (input.test) await screenshot(channel, input.test, '06-discord-channel');

  await channel.getByRole('button', { name: 'Complete Verification!' }).last().click();
  const reply = channel.getByRole('article').filter({ hasText: 'Only you can see this' }).filter({ hasText: input.replyText });
  await visible(reply);
  await visible(channel.getByRole('status').getByText(/replied/));
  return channel;
}
