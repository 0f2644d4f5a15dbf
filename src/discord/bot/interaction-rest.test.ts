import { REST, type RESTOptions } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { createDiscordEmulator, realmSafeMakeRequest, type DiscordEmulator } from '../../discord-emulator';
import { BotRest } from '../discord-rest';
import { isInteractionRoute } from './interaction-rest';

describe("interaction routes: a path of their own, off the bot's global budget", () => {
  it('takes the callback and the interaction webhook (sent with the interaction token), nothing sent with the bot token', () => {
    expect(isInteractionRoute({ fullRoute: '/interactions/1234567890123456789/aW50ZXJhY3Rpb24/callback', auth: false })).toBe(true);
    expect(isInteractionRoute({ fullRoute: '/webhooks/1234567890123456789/aW50ZXJhY3Rpb24/messages/@original', auth: false })).toBe(true);
    expect(isInteractionRoute({ fullRoute: '/webhooks/1234567890123456789/aW50ZXJhY3Rpb24', auth: false })).toBe(true);
    expect(isInteractionRoute({ fullRoute: '/webhooks/1234567890123456789', auth: true })).toBe(false);
    expect(isInteractionRoute({ fullRoute: '/channels/1234567890123456789/messages', auth: true })).toBe(false);
    expect(isInteractionRoute({ fullRoute: '/guilds/1234567890123456789/members/1/roles/2', auth: undefined })).toBe(false);
  });

  describe('against the emulator, the client paced at 2 requests/s over its bot calls', () => {
    let emulator: DiscordEmulator;
    beforeAll(async () => {
      emulator = await createDiscordEmulator({ rateLimits: false });
    });
    afterAll(async () => emulator.close());
    const options = (): Partial<RESTOptions> => ({
      api: emulator.apiBase,
      globalRequestsPerSecond: 2,
      makeRequest: realmSafeMakeRequest,
      retries: 0,
    });

    /** Two bot calls queued (the second of a window's budget), then two edits of interaction replies: ms until the edits were answered. */
    async function editsBehindBotCalls(rest: REST): Promise<number> {
      rest.setToken(emulator.application.botToken);
      const botCalls = [1, 2].map(() => rest.get(Routes.user('@me')));
      const started = performance.now();
      // unknown interaction tokens: Discord answers 404 Unknown Webhook, which is all the timing needs
      const edits = [1, 2].map((n) =>
        rest
          .patch(Routes.webhookMessage(emulator.application.id, `token-${n}`, '@original'), { body: { content: 'done' }, auth: false })
          .catch(() => undefined),
      );
      await Promise.all(edits);
      const elapsed = performance.now() - started;
      await Promise.all(botCalls);
      rest.clearHashSweeper();
      rest.clearHandlerSweeper();
      return elapsed;
    }

    it('the library alone: the edits wait for the global budget the bot calls spent (the cause)', async () => {
      expect(await editsBehindBotCalls(new REST(options()))).toBeGreaterThanOrEqual(900);
    });

    it('BotRest: the edits are answered at once', async () => {
      expect(await editsBehindBotCalls(new BotRest(options()))).toBeLessThan(900);
    });
  });
});
