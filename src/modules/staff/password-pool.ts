import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import { createBoundedQueue, type BoundedQueue, type RunOptions } from './bounded-queue';

type BcryptWork = { op: 'hash'; password: string; cost: number } | { op: 'compare'; password: string; hash: string };
export type BcryptJob = BcryptWork & { id: number };
export type BcryptAnswer = { id: number; value: string | boolean } | { id: number; error: string };

/** Where bcrypt runs. */
export interface BcryptRunner {
  hash(password: string, cost: number): Promise<string>;
  compare(password: string, hash: string, options?: RunOptions): Promise<boolean>;
  /** ends the threads, if any */
  close(): Promise<void>;
}

/** bcryptjs on the calling thread, bounded by the same queue: for tests, where a thread's start-up costs more than it saves. */
export function inlineBcrypt(queue: BoundedQueue = createBoundedQueue({ concurrency: 1, queueLimit: 64 })): BcryptRunner {
  return {
    hash: (password, cost) => queue.run(() => bcrypt.hash(password, cost)),
    compare: (password, hash, options) => queue.run(() => bcrypt.compare(password, hash), options),
    close: async () => {},
  };
}

/** The thread's entry: the build's JavaScript beside this file, or (running from the TypeScript sources under tsx or jest) the source through tsx. */
function spawnWorker(): Worker {
  const options = { execArgv: [] as string[] };
  const built = path.join(__dirname, 'password-worker.js');
  if (fs.existsSync(built)) return new Worker(built, options);
  const source = path.join(__dirname, 'password-worker.ts');
  return new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(source)});`, {
    ...options,
    eval: true,
  });
}

/** Password checks that may wait per thread, beyond the one it runs; more are refused as busy. */
export const WAITING_PER_HASH_THREAD = 2;

/**
 * Password threads per web process: the machine's CPUs but one left for the event loops, at most 4 in all,
 * shared among the `webProcesses` (WEB_CONCURRENCY) that each have their own, and at least 1 each. A sign-in
 * is rare; a spray must not take every core. On 2 CPUs that is 1 thread; on 4 CPUs with 2 processes, 1 each.
 */
export function defaultHashThreads(cpus = os.availableParallelism(), webProcesses = 1): number {
  return Math.max(1, Math.floor(Math.min(4, cpus - 1) / Math.max(1, webProcesses)));
}

/**
 * bcrypt on a few worker threads, off the event loop. At most `threads` checks run at once
 * and at most `queueLimit` wait; beyond that a check is refused at once (429 + Retry-After), except a priority one.
 * `priorityReserve` more threads are kept for priority checks (a known client's), so that one
 * starts at once rather than after a spray's check already running.
 * Threads start on first use and never keep the process alive.
 */
export function workerBcrypt(options: {
  threads: number;
  queueLimit: number;
  priorityReserve?: number;
}): BcryptRunner & { readonly queue: BoundedQueue } {
  const queue = createBoundedQueue({
    concurrency: options.threads,
    queueLimit: options.queueLimit,
    priorityReserve: options.priorityReserve,
  });
  const idle: Worker[] = [];
  const all = new Set<Worker>();
  let nextId = 1;

  /** The queue lets at most `threads` (+ `priorityReserve`) jobs run, so a thread is idle or one more may start. */
  function takeWorker(): Worker {
    const worker = idle.pop();
    if (worker) return worker;
    const fresh = spawnWorker();
    fresh.unref();
    all.add(fresh);
    fresh.once('exit', () => all.delete(fresh));
    return fresh;
  }

  function run<T extends string | boolean>(job: BcryptWork, runOptions?: RunOptions): Promise<T> {
    return queue.run(
      () =>
        new Promise<T>((resolve, reject) => {
          const worker = takeWorker();
          const id = nextId++;
          const done = () => {
            worker.off('message', onMessage);
            worker.off('error', onError);
            worker.off('exit', onExit);
          };
          const onMessage = (answer: BcryptAnswer) => {
            if (answer.id !== id) return;
            done();
            idle.push(worker);
            if ('error' in answer) reject(new Error(`password hashing failed: ${answer.error}`));
            else resolve(answer.value as T);
          };
          // a thread that fails is dropped; the next job starts a new one
          const onError = (error: Error) => {
            done();
            void worker.terminate();
            reject(error);
          };
          const onExit = (code: number) => {
            done();
            reject(new Error(`the password thread stopped (exit code ${code})`));
          };
          worker.on('message', onMessage);
          worker.once('error', onError);
          worker.once('exit', onExit);
          const message: BcryptJob = { ...job, id };
          worker.postMessage(message);
        }),
      runOptions,
    );
  }

  return {
    queue,
    hash: (password, cost) => run<string>({ op: 'hash', password, cost }),
    compare: (password, hash, options) => run<boolean>({ op: 'compare', password, hash }, options),
    async close() {
      idle.length = 0;
      await Promise.all([...all].map((worker) => worker.terminate()));
    },
  };
}
