import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import type { BcryptJob, BcryptAnswer } from './password-pool';

/**
 * A password-hashing thread: bcrypt is pure JavaScript here, so a check on the main
 * thread would hold the event loop (and every request waiting on it) for its whole cost.
 * One job at a time; the pool gives each thread at most one.
 */
parentPort?.on('message', (job: BcryptJob) => {
  let answer: BcryptAnswer;
  try {
    answer = job.op === 'hash' ? { id: job.id, value: bcrypt.hashSync(job.password, job.cost) } : { id: job.id, value: bcrypt.compareSync(job.password, job.hash) };
  } catch (error) {
    answer = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
});
