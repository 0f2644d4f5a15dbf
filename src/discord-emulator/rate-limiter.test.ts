import { DISCORD_RATE_LIMITS, resolveRateLimits } from './rate-limiter';

describe('emulator rate-limit settings', () => {
  it("scales every bucket's window, keeping Discord's counts and the global limit", () => {
    const config = resolveRateLimits({ timeScale: 0.02 });
    expect(config?.buckets['member-add']).toEqual({ limit: 10, windowMs: 200 });
    expect(config?.buckets['member-read']).toEqual({ limit: 5, windowMs: 20 });
    expect(config?.global).toEqual(DISCORD_RATE_LIMITS.global);
  });

  it('never shrinks a scaled window below minWindowMs, nor grows one past Discord’s own', () => {
    const config = resolveRateLimits({ timeScale: 0.02, minWindowMs: 100 });
    expect(config?.buckets['member-read']).toEqual({ limit: 5, windowMs: 100 });
    expect(config?.buckets['member-add']).toEqual({ limit: 10, windowMs: 200 });
    const unscaled = resolveRateLimits({ minWindowMs: 60_000 });
    expect(unscaled?.buckets['member-read']).toEqual(DISCORD_RATE_LIMITS.buckets['member-read']);
  });
});
