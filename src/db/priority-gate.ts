/**
 * One holder at a time, handed on in two queues: priority work first, then the rest in arrival order.
 * The embedded engine's worker (pglite-worker.ts) takes PGlite's one connection through it, so a
 * staff sign-in's statements go ahead of a crowd's queued ones (staff-lane.ts) instead of behind them.
 */
export interface PriorityGate {
  run<T>(work: () => Promise<T>, priority: boolean): Promise<T>;
  /** holders waiting, for tests */
  readonly waiting: number;
}

export function createPriorityGate(): PriorityGate {
  const first: Array<() => void> = [];
  const rest: Array<() => void> = [];
  let held = false;
  const giveTo = () => {
    const next = first.shift() ?? rest.shift();
    if (next) next();
    else held = false;
  };
  /**
   * With holders waiting, the gate is handed on after a turn of the event loop: work that arrived
   * meanwhile (a message from the main thread) is queued first, and a priority holder among it goes
   * next. Handed on at once, a queue of statements would run back to back and nothing new would be
   * read until all of it was through.
   */
  const handOn = () => {
    if (first.length + rest.length === 0) held = false;
    else setImmediate(giveTo);
  };
  return {
    async run<T>(work: () => Promise<T>, priority: boolean): Promise<T> {
      // a waiter is handed the gate still held: nobody arriving meanwhile can take it
      if (held) await new Promise<void>((resolve) => (priority ? first : rest).push(resolve));
      held = true;
      try {
        return await work();
      } finally {
        handOn();
      }
    },
    get waiting() {
      return first.length + rest.length;
    },
  };
}
