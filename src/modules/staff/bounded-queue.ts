import { AppError } from '../../errors';

/** How long a caller refused by a full queue is told to wait; a queue drains in about that. */
export const BUSY_RETRY_SECONDS = 2;

/** The code of that answer's error. */
export const BUSY = 'busy';

/** The answer when password checks are queued to their limit: quick, a 429 like the throttles' (never a 5xx). */
export function passwordWorkBusy(): AppError {
  return new AppError(429, BUSY, `The server is busy checking passwords. Try again in ${BUSY_RETRY_SECONDS} seconds.`, undefined, {
    'Retry-After': String(BUSY_RETRY_SECONDS),
  });
}

export interface RunOptions {
  /** goes before every waiting task and is never refused: a sign-in from a known client during a spray */
  priority?: boolean;
  /** asked when the task's turn comes: true refuses it as busy instead (a spray's check queued before a pause began) */
  unwanted?: () => boolean;
}

export interface BoundedQueue {
  /** Runs the task when one of `concurrency` slots is free; throws passwordWorkBusy() at once when `queueLimit` tasks already wait (unless `priority`). */
  run<T>(task: () => Promise<T>, options?: RunOptions): Promise<T>;
  /** tasks running and waiting, for tests and the bench */
  readonly running: number;
  readonly waiting: number;
}

export interface BoundedQueueOptions {
  concurrency: number;
  queueLimit: number;
  /**
   * Slots beyond `concurrency` that only priority tasks may take (default none): a known client's
   * password check starts at once instead of waiting for a spray's check already running.
   */
  priorityReserve?: number;
}

/**
 * Bounded concurrency with a bounded wait: a flood of requests gets quick refusals
 * instead of an ever longer queue that holds requests (and the memory of each) open.
 */
export function createBoundedQueue(options: BoundedQueueOptions): BoundedQueue {
  const reserve = options.priorityReserve ?? 0;
  let running = 0;
  /** priority tasks first (they are put at the front), then the rest in arrival order */
  const waiting: Array<{ priority: boolean; start: () => void }> = [];
  const mayStart = (priority: boolean) => running < options.concurrency + (priority ? reserve : 0);

  const release = () => {
    running -= 1;
    const next = waiting[0];
    if (next && mayStart(next.priority)) {
      waiting.shift();
      running += 1; // the slot passes straight to the next task
      next.start();
    }
  };

  return {
    async run<T>(task: () => Promise<T>, runOptions: RunOptions = {}): Promise<T> {
      const priority = runOptions.priority === true;
      if (!mayStart(priority)) {
        if (priority) {
          await new Promise<void>((start) => waiting.unshift({ priority, start }));
        } else {
          if (waiting.length >= options.queueLimit) throw passwordWorkBusy();
          await new Promise<void>((start) => waiting.push({ priority, start }));
        }
      } else {
        running += 1;
      }
      try {
        if (runOptions.unwanted?.()) throw passwordWorkBusy();
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
