import { createBoundedQueue } from './bounded-queue';

describe('createBoundedQueue', () => {
  it('runs at most `concurrency` tasks at once, queues `queueLimit` more, and refuses the rest at once', async () => {
    const queue = createBoundedQueue({ concurrency: 2, queueLimit: 3 });
    let active = 0;
    let peak = 0;
    const gates: Array<() => void> = [];
    const task = () =>
      new Promise<number>((resolve) => {
        active += 1;
        peak = Math.max(peak, active);
        gates.push(() => {
          active -= 1;
          resolve(active);
        });
      });
    const results = Array.from({ length: 8 }, () =>
      queue.run(task).then(
        () => 'done',
        (error: Error & { status?: number }) => error.status,
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.running).toBe(2);
    expect(queue.waiting).toBe(3);
    while (gates.length > 0 || queue.running > 0) {
      gates.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(results)).toEqual(['done', 'done', 'done', 'done', 'done', 429, 429, 429]);
    expect(peak).toBe(2);
    expect(queue.running + queue.waiting).toBe(0);
  });

  it('frees the slot when a task fails', async () => {
    const queue = createBoundedQueue({ concurrency: 1, queueLimit: 0 });
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run(() => Promise.resolve(7))).toBe(7);
  });

  it('puts a priority task before the waiting ones and never refuses it', async () => {
    const queue = createBoundedQueue({ concurrency: 1, queueLimit: 1 });
    const order: string[] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = queue.run(() => gate.then(() => order.push('first')));
    const queued = queue.run(async () => order.push('queued'));
    await expect(queue.run(async () => order.push('refused'))).rejects.toMatchObject({ status: 429 });
    const priority = queue.run(async () => order.push('priority'), { priority: true });
    open();
    await Promise.all([first, queued, priority]);
    expect(order).toEqual(['first', 'priority', 'queued']);
  });

  it('starts a priority task at once in a reserved slot, which no other task takes', async () => {
    const queue = createBoundedQueue({ concurrency: 1, queueLimit: 2, priorityReserve: 1 });
    const opens: Record<string, () => void> = {};
    const started: string[] = [];
    const task = (name: string) => () =>
      new Promise<void>((resolve) => {
        started.push(name);
        opens[name] = resolve;
      });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const spray = queue.run(task('spray'));
    const waiting = queue.run(task('waiting'));
    const known = queue.run(task('known'), { priority: true });
    await settle();
    expect(started).toEqual(['spray', 'known']); // no wait for the running one
    const second = queue.run(task('second known'), { priority: true });
    await settle();
    expect(started).toEqual(['spray', 'known']); // the reserve is one slot
    opens['known']!();
    await settle();
    expect(started).toEqual(['spray', 'known', 'second known']);
    opens['second known']!();
    await settle();
    expect(started).toEqual(['spray', 'known', 'second known']); // the reserved slot is not for the waiting task
    expect(queue.running).toBe(1);
    opens['spray']!();
    await settle();
    expect(started).toEqual(['spray', 'known', 'second known', 'waiting']);
    opens['waiting']!();
    await Promise.all([spray, waiting, known, second]);
    expect(queue.running + queue.waiting).toBe(0);
  });

  it('refuses a task that is no longer wanted when its turn comes, as busy, and passes its place on', async () => {
    const queue = createBoundedQueue({ concurrency: 1, queueLimit: 2 });
    let open: () => void = () => {};
    const started: string[] = [];
    let unwanted = false;
    const running = queue.run(() => new Promise<void>((resolve) => ((open = resolve), started.push('running'))));
    const dropped = queue.run(async () => void started.push('dropped'), { unwanted: () => unwanted });
    const next = queue.run(async () => void started.push('next'));
    unwanted = true; // e.g. a pause began while it waited
    open();
    await expect(dropped).rejects.toMatchObject({ status: 429, code: 'busy' });
    await Promise.all([running, next]);
    expect(started).toEqual(['running', 'next']);
    expect(queue.running + queue.waiting).toBe(0);
  });
});
