import fs from 'node:fs';
import path from 'node:path';
import diagnostics from 'node:diagnostics_channel';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { QueryOptions, Results } from '@electric-sql/pglite';
import { openTransaction, type EmbeddedClient, type EmbeddedQueries } from './embedded-client';
import { isStaffLane } from './staff-lane';
import {
  batchByTurn,
  errorFromFields,
  itemsOf,
  type Batch,
  type WorkerAnswer,
  type WorkerRequest,
  type WorkerStarted,
} from './pglite-worker-protocol';

/** Every request but its id, which the client gives it. */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

export class EmbeddedWorkerStoppedError extends Error {
  constructor(reason: string) {
    super(`the embedded database worker stopped: ${reason}`);
    this.name = 'EmbeddedWorkerStoppedError';
  }
}

/**
 * The worker's entry: the build's JavaScript beside this file, or (running from the
 * TypeScript sources under tsx or jest) the source loaded through tsx's CommonJS hook.
 */
function spawnWorker(folder: string, port: MessagePort): Worker {
  // no inherited flags (a preload meant for the main thread, a bench probe, must not run twice) but
  // the CPU profiler's: a profiled product profiles its database thread too
  const options = {
    workerData: { folder, port },
    transferList: [port],
    execArgv: process.execArgv.filter((flag) => flag.startsWith('--cpu-prof')),
  };
  const built = path.join(__dirname, 'pglite-worker.js');
  if (fs.existsSync(built)) return new Worker(built, options);
  const source = path.join(__dirname, 'pglite-worker.ts');
  const boot = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(source)});`;
  return new Worker(boot, { ...options, eval: true });
}

/** Drizzle's PGlite driver passes parsers that hand a type's text back unchanged; only those can cross to the worker. */
const rawTypesOf = new WeakMap<object, number[]>();
function rawTypes(parsers: QueryOptions['parsers']): number[] | undefined {
  if (!parsers) return undefined;
  let types = rawTypesOf.get(parsers);
  if (!types) {
    types = Object.entries(parsers).map(([oid, parse]) => {
      if (parse('2000-01-01', Number(oid)) !== '2000-01-01')
        throw new Error(`a parser for type ${oid} that changes the value cannot run in the database worker`);
      return Number(oid);
    });
    rawTypesOf.set(parsers, types);
  }
  return types;
}

export interface WorkerClientOptions {
  /** the worker ended without being closed; the process cannot go on without its database */
  onCrash: (error: Error) => void;
  /** drills: SIGUSR2 makes the worker crash, to check the process exits rather than hangs */
  crashOnSigusr2?: boolean;
}

/** Opens the data folder's database in a worker thread; resolves once it answers. */
export async function openWorkerClient(folder: string, options: WorkerClientOptions): Promise<EmbeddedClient> {
  // requests and answers go over a channel of our own rather than the worker's built-in one, so that
  // answers already delivered can be taken before their turn (drainAnswers below)
  const channel = new MessageChannel();
  const port = channel.port1;
  const worker = spawnWorker(folder, channel.port2);
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let closing = false;
  let stopped: Error | undefined;

  const started = new Promise<void>((resolve, reject) => {
    port.once('message', (message: WorkerStarted) => (message.started ? resolve() : reject(errorFromFields(message.error))));
    worker.once('exit', (code) => reject(new EmbeddedWorkerStoppedError(`exit code ${code} while opening`)));
    worker.once('error', reject);
  });
  try {
    await started;
  } catch (error) {
    port.close();
    throw error;
  }

  const settle = (message: WorkerAnswer) => {
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(errorFromFields(message.error));
  };
  // the worker batches its answers as this side batches requests
  const settleAll = (message: Batch<WorkerAnswer>) => itemsOf(message).forEach(settle);
  port.on('message', settleAll);
  /**
   * Settles the answers that have arrived but wait behind other work of the event loop. Under load
   * (P2 on PGlite, 32 visitors) an answer waited 0.75-0.90 ms p50 and 7.7-9.2 ms p90 for its turn,
   * and an answer inside a transaction holds PGlite's one connection for all of that wait: every
   * other statement queues behind it. So the answers waiting are taken whenever the main thread
   * starts or ends a piece of HTTP work (a request arrives, a response is sent, an answer from
   * Discord or proxycheck arrives), before that work's own: what is already under way (a
   * transaction's next statement) goes first. After: 0.18-0.22 ms p50, 1.6-1.9 ms p90. Taking a
   * message this way skips its 'message' event, and an empty port costs about 0.1 µs.
   */
  const drainAnswers = () => {
    for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port))
      settleAll(next.message as Batch<WorkerAnswer>);
  };
  const drainPoints = ['http.server.request.start', 'http.server.response.finish', 'undici:request:headers'].map((name) =>
    diagnostics.channel(name),
  );
  for (const point of drainPoints) point.subscribe(drainAnswers);
  let crashError: Error | undefined;
  worker.on('error', (error) => (crashError = error));
  worker.on('exit', (code) => {
    for (const point of drainPoints) point.unsubscribe(drainAnswers);
    // what the worker answered before it ended is settled, not lost with the port (close's own answer among it)
    drainAnswers();
    port.close();
    stopped = new EmbeddedWorkerStoppedError(crashError ? crashError.message : `exit code ${code}`);
    for (const waiting of pending.values()) waiting.reject(stopped);
    pending.clear();
    if (!closing) options.onCrash(crashError ?? stopped);
  });

  // requests made in one turn go as one message (a transaction's BEGIN and its first statement,
  // statements of requests served together)
  const outgoing = batchByTurn<WorkerRequest>((message) => {
    if (!stopped) port.postMessage(message);
  });

  /** Posts a request; its id, and its answer to come. */
  const send = <T>(request: Unnumbered<WorkerRequest>): { id: number; answer: Promise<T> } => {
    const id = nextId++;
    if (stopped) return { id, answer: Promise.reject(stopped) };
    const answer = new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      // staff-lane work (staff-lane.ts) goes ahead of the statements waiting for the connection
      outgoing.send({ ...request, id, ...(isStaffLane() ? { priority: true } : {}) } as WorkerRequest);
    });
    return { id, answer };
  };
  const call = <T>(request: Unnumbered<WorkerRequest>): Promise<T> => send<T>(request).answer;

  const queries = (txId?: number, commit?: boolean): EmbeddedQueries => ({
    query: <T>(text: string, params: unknown[] = [], queryOptions?: QueryOptions) =>
      call<Results<T>>({
        op: 'query',
        text,
        params,
        txId,
        rowMode: queryOptions?.rowMode,
        rawTypes: rawTypes(queryOptions?.parsers),
        paramTypes: queryOptions?.paramTypes,
        ...(commit ? { commit } : {}),
      }),
    exec: (text: string) => call<Results[]>({ op: 'exec', text, txId }),
  });

  if (options.crashOnSigusr2) {
    const crash = () => void call({ op: 'crash' }).catch(() => undefined);
    process.on('SIGUSR2', crash);
    worker.once('exit', () => process.off('SIGUSR2', crash));
  }

  return {
    ...queries(),
    /**
     * BEGIN goes with the transaction's first statement, once that statement is built, and without
     * waiting for BEGIN's answer (the transaction's id is BEGIN's request id): PGlite's one
     * connection is taken when there is something to run, not a round trip and a statement's
     * building earlier, while the main thread serves other requests. A transaction that runs no
     * statement takes nothing.
     */
    async transaction<T>(work: (tx: EmbeddedQueries) => Promise<T>): Promise<T> {
      let begun: { id: number; answer: Promise<number> } | undefined;
      const txId = () => {
        if (!begun) {
          begun = send<number>({ op: 'begin' });
          begun.answer.catch(() => undefined); // a BEGIN that fails fails its first statement too, which reports it
        }
        return begun.id;
      };
      /** `endWithNext` was called: the next statement goes with COMMIT; once it has gone, the transaction is over */
      let last: 'next' | 'sent' | undefined;
      const ended = () => Promise.reject(new Error('the transaction has ended: its last statement committed it'));
      const tx: EmbeddedQueries = {
        query: (text, params, queryOptions) => {
          if (last === 'sent') return ended();
          const commit = last === 'next';
          if (commit) last = 'sent';
          return queries(txId(), commit).query(text, params, queryOptions);
        },
        exec: (text) => (last === 'sent' ? ended() : queries(txId()).exec(text)),
        endWithNext: () => {
          if (last !== 'sent') last = 'next';
        },
      };
      let result: T;
      try {
        // asLastStatement (last-statement.ts) finds the transaction through this context
        result = await openTransaction.run(tx, () => work(tx));
      } catch (error) {
        // a last statement that went ended the transaction in the worker: committed, or rolled back if it failed
        if (begun && last !== 'sent') await call({ op: 'end', txId: begun.id, commit: false }).catch(() => undefined);
        throw error;
      }
      if (begun && last !== 'sent') {
        await begun.answer;
        await call({ op: 'end', txId: begun.id, commit: true });
      }
      return result;
    },
    async dumpDataDir(compression) {
      return new Blob([await call<ArrayBuffer>({ op: 'dump', compression })]);
    },
    get closed() {
      return closing || stopped !== undefined;
    },
    async close() {
      if (closing || stopped) return;
      closing = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      await call({ op: 'close' });
      // the worker ends once its database is closed; a handle left open must not hold shutdown
      const stuck = setTimeout(() => void worker.terminate(), 5_000);
      stuck.unref();
      await exited;
      clearTimeout(stuck);
    },
  };
}
