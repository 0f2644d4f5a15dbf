import { createSignInGate, SIGN_IN_GATE } from './sign-in-gate';

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
