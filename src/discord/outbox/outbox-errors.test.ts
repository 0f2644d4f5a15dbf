import { DiscordAPIError } from '@discordjs/rest';
import { retryAfterMs } from './outbox-errors';

const apiError = (status: number, body: Record<string, unknown>) =>
  new DiscordAPIError({ message: 'x', code: 0, ...body } as never, 0, status, 'PUT', '/guilds/1/members/2/roles/3', {});

describe('retryAfterMs: the wait a 429 that reached the outbox asked for', () => {
  it("reads the 429 body's retry_after (seconds, may be fractional)", () => {
    expect(retryAfterMs(apiError(429, { retry_after: 2.5 }))).toBe(2500);
  });
  it('none for a 429 without it, or any other answer', () => {
    expect(retryAfterMs(apiError(429, {}))).toBeNull();
    expect(retryAfterMs(apiError(403, { retry_after: 3 }))).toBeNull();
    expect(retryAfterMs(new Error('socket hang up'))).toBeNull();
  });
});
