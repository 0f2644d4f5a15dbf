import { createPriorityGate } from './priority-gate';

describe('priority gate', () => {
  it('runs one holder at a time, priority work ahead of earlier waiters, the rest in arrival order', async () => {
    const gate = createPriorityGate();
    const order: string[] = [];
    let running = 0;
    const job = (name: string, priority = false) =>
      gate.run(async () => {
        running += 1;
        expect(running).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(name);
        running -= 1;
      }, priority);
    const all = [job('a'), job('b'), job('c'), job('staff', true), job('d')];
    expect(gate.waiting).toBe(4);
    await Promise.all(all);
    expect(order).toEqual(['a', 'staff', 'b', 'c', 'd']);
  });

  it('hands the gate on when the work fails', async () => {
    const gate = createPriorityGate();
    const failed = gate.run(() => Promise.reject(new Error('no')), false);
    const next = gate.run(async () => 'ran', false);
    await expect(failed).rejects.toThrow('no');
    await expect(next).resolves.toBe('ran');
  });
});

describe('priority gate between turns of the event loop', () => {
  it('lets priority work that arrives while a queue runs go next', async () => {
    const gate = createPriorityGate();
    const order: string[] = [];
    // holders that finish without giving the event loop a turn, as a statement run synchronously does
    const queue = Array.from({ length: 5 }, (_, i) => gate.run(async () => void order.push(`visitor ${i}`), false));
    // arrives as a message would: on a later turn of the event loop
    const staff = new Promise<void>((resolve) => setImmediate(resolve)).then(() => gate.run(async () => void order.push('staff'), true));
    await Promise.all([...queue, staff]);
    expect(order.indexOf('staff')).toBeLessThan(3);
  });
});
