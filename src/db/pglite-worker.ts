import { workerData, type MessagePort } from 'node:worker_threads';
import { PGlite, type Extension, type QueryOptions } from '@electric-sql/pglite';
import { exclusiveDump } from './embedded-client';
import { PreparedStatements } from './pglite-prepared';
import { createPriorityGate } from './priority-gate';
import { runTransaction, type PgliteTransaction } from './pglite-transaction';
import {
  batchByTurn,
  errorToFields,
  itemsOf,
  type Batch,
  type WorkerAnswer,
  type WorkerRequest,
  type WorkerStarted,
} from './pglite-worker-protocol';

/**
 * The worker thread that owns the embedded database: PostgreSQL in WebAssembly and
 * PGlite's protocol decoding run here, so the main thread keeps serving HTTP. Requests
 * arrive as messages (pglite-worker-protocol.ts). A statement outside a transaction, and a
 * whole transaction, take the one connection through `connection` (priority-gate.ts): the
 * staff lane's first, then in arrival order; a transaction's own statements run inside its turn.
 */

// The contrib entry point's types are published as ESM only; its CommonJS build is real.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

interface OpenTransaction {
  tx: PgliteTransaction;
  decide: (commit: boolean) => void;
  /** settles once COMMIT or ROLLBACK has run: rejects with the error that ended it otherwise */
  ended: Promise<void>;
  /** the id of the request that ends it, answered when COMMIT or ROLLBACK has run */
  endId?: number;
}

/** the channel the client made for this database (pglite-worker-client.ts): requests in, answers out */
const { folder, port } = workerData as { folder: string; port: MessagePort };
const transactions = new Map<number, OpenTransaction>();
const connection = createPriorityGate();
/**
 * Transactions asked for and not yet open (waiting for PGlite's lock). The main thread sends a
 * transaction's BEGIN with its first statement, not waiting for BEGIN's answer, so the lock is
 * taken only once that statement is ready: its statements wait here for the transaction to open.
 */
const opening = new Map<number, Promise<OpenTransaction>>();

/** Answers ready in one turn go back as one message, as the requests came; one that transfers a buffer (a dump) goes alone. */
const outgoing = batchByTurn<WorkerAnswer>((message) => port.postMessage(message));

function answer(message: WorkerAnswer, transfer: ArrayBuffer[] = []): void {
  if (transfer.length > 0) port.postMessage(message, transfer);
  else outgoing.send(message);
}

function fail(id: number, error: unknown): void {
  answer({ id, ok: false, error: errorToFields(error) });
}

/** The transaction a request names, once it is open. */
async function openTransaction(txId: number): Promise<OpenTransaction> {
  const open = transactions.get(txId) ?? (await opening.get(txId));
  if (!open) throw new Error(`transaction ${txId} is not open`);
  return open;
}

/** The transaction a statement names, or the database itself. */
async function target(pglite: PGlite, txId: number | undefined) {
  return txId === undefined ? pglite : (await openTransaction(txId)).tx;
}

/**
 * A parameterised statement, as a prepared statement (pglite-prepared.ts), in the transaction it
 * names or on its own. A transaction's last statement (`commit`) ends it: COMMIT runs right
 * after it, here, not a round trip to the main thread later, and its answer comes once COMMIT has
 * run (ROLLBACK when the statement failed, and the statement's error).
 */
async function query(prepared: PreparedStatements, request: Extract<WorkerRequest, { op: 'query' }>) {
  const options: QueryOptions = { rowMode: request.rowMode, parsers: rawParsers(request.rawTypes), paramTypes: request.paramTypes };
  if (request.txId === undefined)
    return connection.run(() => prepared.query(request.text, request.params, options), request.priority === true);
  const open = await openTransaction(request.txId);
  if (!request.commit) return prepared.queryIn(open.tx, request.text, request.params, options);
  let result;
  try {
    result = await prepared.queryIn(open.tx, request.text, request.params, options);
  } catch (error) {
    open.decide(false);
    await open.ended.catch(() => undefined);
    throw error;
  }
  open.decide(true);
  await open.ended;
  return result;
}

/** Types whose values stay text: a parser that hands the text back unchanged. */
function rawParsers(types: number[] | undefined): QueryOptions['parsers'] {
  if (!types) return undefined;
  return Object.fromEntries(types.map((oid) => [oid, (value: string) => value]));
}

function begin(pglite: PGlite, id: number, priority: boolean): void {
  let started = false;
  let decide!: (commit: boolean) => void;
  const decided = new Promise<boolean>((resolve) => (decide = resolve));
  let opened!: (open: OpenTransaction) => void;
  let failedToOpen!: (error: unknown) => void;
  const open = new Promise<OpenTransaction>((resolve, reject) => ((opened = resolve), (failedToOpen = reject)));
  open.catch(() => undefined); // the begin's own answer reports it; a statement waiting on it fails with it too
  opening.set(id, open);
  let end!: { resolve: () => void; reject: (error: unknown) => void };
  const ended = new Promise<void>((resolve, reject) => (end = { resolve, reject }));
  ended.catch(() => undefined); // reported by whatever ended the transaction (an EndRequest, a last statement)
  const run = connection.run(
    () =>
      runTransaction(pglite, async (tx) => {
        const transaction = { tx, decide, ended };
        transactions.set(id, transaction);
        opening.delete(id);
        started = true;
        opened(transaction);
        answer({ id, ok: true, value: id });
        if (!(await decided)) await tx.rollback();
      }),
    priority,
  );
  run
    .then(
      () => {
        end.resolve();
        const endId = transactions.get(id)?.endId;
        if (endId !== undefined) answer({ id: endId, ok: true, value: null });
      },
      (error: unknown) => {
        end.reject(error);
        const endId = transactions.get(id)?.endId;
        if (!started) {
          failedToOpen(error);
          fail(id, error);
        } else if (endId !== undefined) fail(endId, error);
      },
    )
    .finally(() => {
      transactions.delete(id);
      opening.delete(id);
    });
}

async function handle(pglite: PGlite, prepared: PreparedStatements, request: WorkerRequest): Promise<void> {
  switch (request.op) {
    case 'query': {
      const result = await query(prepared, request);
      answer({ id: request.id, ok: true, value: { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows } });
      return;
    }
    case 'exec': {
      const exec = async () => (await target(pglite, request.txId)).exec(request.text);
      const results = request.txId === undefined ? await connection.run(exec, request.priority === true) : await exec();
      answer({ id: request.id, ok: true, value: results.map((r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows })) });
      return;
    }
    case 'begin':
      begin(pglite, request.id, request.priority === true);
      return;
    case 'end': {
      const open = await openTransaction(request.txId);
      open.endId = request.id;
      open.decide(request.commit);
      return;
    }
    case 'dump': {
      const dump = await connection.run(() => exclusiveDump(pglite, request.compression), false);
      const bytes = await dump.arrayBuffer();
      answer({ id: request.id, ok: true, value: bytes }, [bytes]);
      return;
    }
    case 'close':
      if (!pglite.closed) await pglite.close();
      answer({ id: request.id, ok: true, value: null });
      outgoing.flush(); // before the port closes: the answers waiting for this turn's end would be lost
      port.close();
      return;
    case 'crash':
      // before the next message is handled: nothing sent after it runs
      process.nextTick(() => {
        throw new Error('the embedded database worker was made to crash (drill)');
      });
      return;
  }
}

async function main(): Promise<void> {
  let pglite: PGlite;
  let prepared: PreparedStatements;
  try {
    pglite = await PGlite.create(folder, { extensions: { pg_trgm } });
    prepared = await PreparedStatements.open(pglite);
  } catch (error) {
    port.postMessage({ started: false, error: errorToFields(error) } satisfies WorkerStarted);
    port.close();
    return;
  }
  // the main thread sends the requests of one turn as one message, in order (pglite-worker-client.ts)
  port.on('message', (message: Batch<WorkerRequest>) => {
    for (const request of itemsOf(message)) handle(pglite, prepared, request).catch((error: unknown) => fail(request.id, error));
  });
  port.postMessage({ started: true } satisfies WorkerStarted);
}

void main();
