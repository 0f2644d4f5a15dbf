import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './logger';

/** What a worker tells the primary once it serves (the primary prints the URL line once). */
export interface ReadyMessage {
  type: 'gatekeeper:ready';
  url: string;
  mode: string;
}

export function isReadyMessage(message: unknown): message is ReadyMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'gatekeeper:ready';
}

export interface PrimaryOptions {
  /** how many workers to keep running */
  count: number;
  logger: Logger;
  /** writes to the operator's terminal (the URL line) */
  print: (text: string) => void;
  exit: (code: number) => never;
  /** a worker that dies is replaced after this delay; `deaths` = deaths in the last minute */
  restartDelayMs?: (deaths: number) => number;
  /** after SIGTERM/SIGINT, workers still running after this long are killed */
  stopTimeoutMs?: number;
}

/** 1 s, 2 s, 4 s … up to 30 s while workers keep dying: a broken start-up does not spin. */
export function restartBackoff(deaths: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, deaths - 1));
}

/**
 * The cluster primary (WEB_CONCURRENCY > 1): forks `count` workers that each run the whole
 * product (they share the listening port through node:cluster), prints the URL line once
 * all are serving, replaces a worker that dies (with a backoff), and on SIGTERM/SIGINT
 * stops every worker gracefully and exits 0 when all stopped cleanly. A worker that dies
 * before the service first came up means start-up failed (it printed why): stop, exit 1.
 */
export function runPrimary(options: PrimaryOptions): void {
  const { logger } = options;
  const backoff = options.restartDelayMs ?? restartBackoff;
  const ready = new Set<number>();
  const deaths: number[] = [];
  const restarts = new Set<NodeJS.Timeout>();
  let announced = false;
  let stopping = false;
  let unclean = false;

  const alive = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());

  const fork = () => {
    const worker = cluster.fork();
    worker.on('message', (message: unknown) => {
      if (!isReadyMessage(message)) return;
      ready.add(worker.id);
      if (announced || ready.size < options.count) return;
      announced = true;
      logger.info({ url: message.url, processes: options.count }, 'all worker processes are serving');
      options.print(`\n  Gatekeeper is running at ${message.url}  (${message.mode}, ${options.count} processes)\n\n`);
    });
  };

  const finishIfDone = () => {
    if (alive().length === 0) options.exit(unclean ? 1 : 0);
  };

  const stop = (signal: NodeJS.Signals, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    if (exitCode !== 0) unclean = true;
    for (const timer of restarts) clearTimeout(timer);
    logger.info({ signal, workers: alive().length }, 'stopping worker processes');
    for (const worker of alive()) worker.process.kill(signal);
    const force = setTimeout(() => {
      logger.error({ workers: alive().length }, 'worker processes did not stop in time: killing them');
      unclean = true;
      for (const worker of alive()) worker.process.kill('SIGKILL');
    }, options.stopTimeoutMs ?? 30_000);
    force.unref();
    finishIfDone();
  };

  cluster.on('exit', (worker, code, signal) => {
    ready.delete(worker.id);
    if (stopping) {
      if (code !== 0) unclean = true;
      finishIfDone();
      return;
    }
    if (!announced) {
      logger.error({ worker: worker.id, code, signal }, 'a worker process failed to start: stopping');
      stop('SIGTERM', 1);
      return;
    }
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && deaths[0]! < now - 60_000) deaths.shift();
    const delayMs = backoff(deaths.length);
    logger.error({ worker: worker.id, pid: worker.process.pid, code, signal, restartInMs: delayMs }, 'a worker process died: replacing it');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, delayMs);
    restarts.add(timer);
  });

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (let i = 0; i < options.count; i++) fork();
}
