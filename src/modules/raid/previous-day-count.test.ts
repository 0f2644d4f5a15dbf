import { createPreviousDayCount, PREVIOUS_DAY_REUSE_MS } from './previous-day-count';

describe('the day before the raid window, counted at most once a minute', () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 5, 1, 12) + ms);

  it('has nothing to reuse before a first count', () => {
    expect(createPreviousDayCount().reusable(at(0))).toBeUndefined();
  });

  it('reuses a count from its own instant until just before PREVIOUS_DAY_REUSE_MS later', () => {
    const count = createPreviousDayCount();
    count.counted(at(0), 1728);
    expect(count.reusable(at(0))).toBe(1728);
    expect(count.reusable(at(PREVIOUS_DAY_REUSE_MS - 1))).toBe(1728);
    expect(count.reusable(at(PREVIOUS_DAY_REUSE_MS))).toBeUndefined();
  });

  it('counts again for a clock that went back, and keeps the newest count', () => {
    const count = createPreviousDayCount(1000);
    count.counted(at(5000), 10);
    expect(count.reusable(at(4999))).toBeUndefined();
    count.counted(at(6000), 0);
    expect(count.reusable(at(6500))).toBe(0);
  });
});
