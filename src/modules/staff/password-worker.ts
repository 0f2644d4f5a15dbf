import fs from 'node:fs';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import type { BcryptJob, BcryptAnswer } from './password-pool';

/** The thread's scheduling priority (a nice value: higher yields to the rest of the process). */
const HASH_THREAD_NICE = 5;

/**
 * Lowers this thread's priority below the event loop's (Linux: nice is per thread, set on its thread id):
 * when the CPUs are full, a visitor's request goes before a password check, so a spray of logins slows
 * down the logins (which the bounded queue then refuses with 429) and not the visitors. Elsewhere, or
 * where it is not allowed, the thread keeps the process's priority.
 */
function yieldToEventLoop(): void {
  try {
    const threadId = Number(/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1]);
    if (Number.isInteger(threadId) && threadId > 0) os.setPriority(threadId, Math.max(os.getPriority(threadId), HASH_THREAD_NICE));
  } catch {
    // no /proc (not Linux) or not permitted: the default priority
  }
}
yieldToEventLoop();

/**
 * A password-hashing thread: bcrypt is pure JavaScript here, so a check on the main
 * thread would hold the event loop (and every request waiting on it) for its whole cost.
 * One job at a time; the pool gives each thread at most one.
 */
parentPort?.on('message', (job: BcryptJob) => {
  let answer: BcryptAnswer;
  try {
    answer =
      job.op === 'hash'
        ? { id: job.id, value: bcrypt.hashSync(job.password, job.cost) }
        : { id: job.id, value: bcrypt.compareSync(job.password, job.hash) };
  } catch (error) {
    answer = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
});
