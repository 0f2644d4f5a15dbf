import { throttledError, waitOf } from './throttle-wait';

describe('waitOf', () => {
  it.each([
    [1, 1, '1 second'],
    [1_000, 1, '1 second'],
    [1_001, 2, '2 seconds'],
    [90_000, 90, '90 seconds'],
    [90_001, 120, '2 minutes'],
    [899_000, 900, '15 minutes'],
    [900_000, 900, '15 minutes'],
  ])('%d ms → Retry-After %d and "%s"', (ms, seconds, text) => expect(waitOf(ms)).toEqual({ seconds, text }));
});

describe('throttledError', () => {
  it('says the same wait in its text as in Retry-After', () => {
    const error = throttledError('client', 61_500);
    expect(error.status).toBe(429);
    expect(error.message).toBe('Too many failed sign-ins from your address. Try again in 62 seconds.');
    expect(error.headers).toEqual({ 'Retry-After': '62' });
  });
});
