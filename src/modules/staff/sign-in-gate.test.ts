import { createFloodPause, createSignInGate, SIGN_IN_FLOOD, SIGN_IN_GATE } from './sign-in-gate';

describe('the gate in front of sign-ins from unknown devices', () => {
  it('lets a few through at once, queues a few more, and refuses the rest at once with the wait the text says', async () => {
    const gate = createSignInGate();
    const releases: Array<() => void> = [];
    const held = () => new Promise<void>((resolve) => releases.push(resolve));
    const total = SIGN_IN_GATE.concurrency + SIGN_IN_GATE.queueLimit + 3;
    const answers = Array.from({ length: total }, () =>
      gate.run(held).then(
        () => 'through',
        (error: Error & { status?: number; headers?: Record<string, string> }) => ({
          status: error.status,
          retryAfter: error.headers?.['Retry-After'],
          message: error.message,
        }),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect({ running: gate.running, waiting: gate.waiting, started: releases.length }).toEqual({
      running: SIGN_IN_GATE.concurrency,
      waiting: SIGN_IN_GATE.queueLimit,
      started: SIGN_IN_GATE.concurrency,
    });
    // the ones beyond the queue are already answered, before anything was released
    const refused = await Promise.all(answers.slice(SIGN_IN_GATE.concurrency + SIGN_IN_GATE.queueLimit));
    expect(refused).toEqual(
      Array(3).fill({ status: 429, retryAfter: '2', message: 'The server is busy checking passwords. Try again in 2 seconds.' }),
    );
    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(answers.slice(0, SIGN_IN_GATE.concurrency + SIGN_IN_GATE.queueLimit))).toEqual(
      Array(SIGN_IN_GATE.concurrency + SIGN_IN_GATE.queueLimit).fill('through'),
    );
    expect({ running: gate.running, waiting: gate.waiting }).toEqual({ running: 0, waiting: 0 });
  });
});

describe('the flood pause', () => {
  const rule = { refusals: 3, windowMs: 60_000, pauseMs: 300_000 };

  it('pauses once the refusals of one window reach the rule, for the pause, and says how long is left', () => {
    const flood = createFloodPause(rule);
    expect([flood.refused(1_000), flood.refused(2_000)]).toEqual([false, false]);
    expect(flood.pausedFor(2_000)).toBe(0);
    expect(flood.refused(3_000)).toBe(true); // the third starts it
    expect(flood.pausedFor(3_000)).toBe(300_000);
    expect(flood.pausedFor(303_000 - 1)).toBe(1);
    expect(flood.pausedFor(303_000)).toBe(0);
  });

  it('starts one pause however many are refused during it, and counts afresh after it', () => {
    const flood = createFloodPause(rule);
    for (const at of [0, 1, 2]) flood.refused(at);
    expect([flood.refused(10), flood.refused(20), flood.refused(30)]).toEqual([false, false, false]);
    expect(flood.pausedFor(30)).toBe(300_000 - 28);
    expect([flood.refused(300_002), flood.refused(300_003)]).toEqual([false, false]);
    expect(flood.refused(300_004)).toBe(true);
  });

  it('does not pause for refusals spread over more than a window each', () => {
    const flood = createFloodPause(rule);
    for (let i = 0; i < 30; i += 1) expect(flood.refused(i * (rule.windowMs / 2 + 1))).toBe(false);
  });

  it('takes more refusals than the gate holds places: honest sign-ins never fill it that far', () => {
    expect(SIGN_IN_FLOOD.refusals).toBeGreaterThan(SIGN_IN_GATE.concurrency + SIGN_IN_GATE.queueLimit);
  });
});
