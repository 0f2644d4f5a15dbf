import { discordUserAgent, PRODUCT_TOKEN } from '../discord-user-agent';
import { describeOnPgliteOnly, resetDatabase } from '../test-support/database';
import { startTestGatekeeper, walkVisitorFlow } from '../test-support/gatekeeper';
import { slashCommandKit } from '../test-support/slash-commands';
import type { GatekeeperHandle } from '../server';

jest.setTimeout(60_000);

/**
 * Discord asks every API request to carry `User-Agent: DiscordBot ($url, $versionNumber)` and may
 * block those without one. Every request the product made to the emulator during start-up, a
 * visitor's whole sign-in and the bot's work afterwards must carry the product's.
 */
// what is checked is the header on the requests Discord receives, which the HTTP clients set whatever stores the data
describeOnPgliteOnly("every request to Discord carries the product's User-Agent", (getDatabase) => {
  let handle: GatekeeperHandle;
  beforeAll(async () => {
    await resetDatabase(getDatabase());
    ({ handle } = await startTestGatekeeper(getDatabase()));
  });
  afterAll(async () => handle?.stop());

  it('on the OAuth2 exchange, /users/@me, the outbox, interaction answers and staff commands', async () => {
    const emulator = handle.discord.emulator!;
    const channelId = emulator.guild.channelId('verification');
    const visitor = emulator.createUser({ username: 'ua-visitor' });

    const { landedOn } = await walkVisitorFlow(handle, { userId: visitor.id, confirmRules: true });
    expect(landedOn).toBe('/rules');
    await handle.services.outboxWorker.drain();
    const button = emulator.findButton(channelId, 'Complete Verification!')!;
    expect(
      JSON.stringify(await emulator.clickButton({ userId: visitor.id, channelId, messageId: button.messageId, customId: button.customId })),
    ).toContain("You're verified");
    await handle.services.outboxWorker.drain();

    const kit = slashCommandKit(handle);
    expect((await kit.run(kit.staffId, 'lookup', { user: visitor.id })).failed).toBe(false);
    expect((await kit.run(kit.staffId, 'unverify', { user: visitor.id })).failed).toBe(false);
    await handle.services.outboxWorker.drain();

    const requests = emulator.state.requestLog;
    const calls = new Set(requests.map((r) => `${r.method} ${r.route}`));
    // the flow reached every kind of client: OAuth2, the outbox's REST, the gateway client's REST
    for (const call of [
      'POST /oauth2/token',
      'GET /users/@me',
      'PUT /guilds/:guildId/members/:userId',
      'POST /interactions/:interactionId/:interactionToken/callback',
      'GET /gateway/bot',
    ]) {
      expect(calls).toContain(call);
    }
    const without = requests
      .filter((r) => !r.userAgent?.includes(discordUserAgent()))
      .map((r) => `${r.method} ${r.route}: ${r.userAgent ?? '(none)'}`);
    expect(without).toEqual([]);
    // the installation's own site and version, then the product's token
    expect(discordUserAgent()).toMatch(/^DiscordBot \(https?:\/\/\S+, \d+\.\d+\.\d+\) Gatekeeper\/\d+\.\d+\.\d+$/);
    expect(discordUserAgent()).toContain(PRODUCT_TOKEN);
  });
});
