import { createPendingSignIns } from './pending-sign-ins';

describe('pending sign-ins', () => {
  it('finds a job by its callback and hands its result to every check until it expires', async () => {
    let t = 0;
    const pending = createPendingSignIns({ keepMs: 1_000, now: () => t });
    let runs = 0;
    const id = pending.start('callback-1', async () => {
      runs++;
      return { kind: 'verified', discordId: '42' };
    })!;
    expect(pending.findByCallback('callback-1')).toBe(id);
    expect(pending.findByCallback('callback-2')).toBeNull();
    expect(await pending.settle(id, 50)).toEqual({ kind: 'verified', discordId: '42' });
    expect(await pending.settle(id, 50)).toEqual({ kind: 'verified', discordId: '42' });
    expect(runs).toBe(1);
    t = 1_000;
    expect(await pending.settle(id, 50)).toBe('unknown');
    expect(pending.findByCallback('callback-1')).toBeNull();
  });

  it("answers 'pending' while the job runs", async () => {
    const pending = createPendingSignIns({ keepMs: 60_000 });
    let finish: (() => void) | undefined;
    const id = pending.start(
      'slow',
      () => new Promise((resolve) => (finish = () => resolve({ kind: 'failed', reason: 'x', retryable: true }))),
    )!;
    expect(await pending.settle(id, 10)).toBe('pending');
    finish!();
    expect(await pending.settle(id, 10)).toEqual({ kind: 'failed', reason: 'x', retryable: true });
  });
});
