import { createBotRest, GLOBAL_REQUESTS_PER_SECOND } from './discord-rest';

describe('the bot’s share of Discord’s global limit', () => {
  it('keeps both of the bot’s clients together below 50 requests/s, with room for windows that do not line up', () => {
    const together = GLOBAL_REQUESTS_PER_SECOND.rest + GLOBAL_REQUESTS_PER_SECOND.gatewayClient;
    expect(together).toBeLessThanOrEqual(45);
  });

  it('paces the REST client at its share', () => {
    const rest = createBotRest({ apiBase: 'http://127.0.0.1:9/api', botToken: 'token' });
    expect(rest.options.globalRequestsPerSecond).toBe(GLOBAL_REQUESTS_PER_SECOND.rest);
  });
});
