/**
 * The messages between the product's main thread and the worker thread that owns the
 * embedded database. Every request carries an id; the worker answers each id once.
 */

export interface QueryRequest {
  op: 'query';
  id: number;
  /** staff-lane work (staff-lane.ts): it takes the connection ahead of other waiting work */
  priority?: boolean;
  text: string;
  params: unknown[];
  /** the transaction it belongs to (absent: it waits for any open transaction to end) */
  txId?: number;
  rowMode?: 'array' | 'object';
  /** type oids whose values stay as PostgreSQL's text (Drizzle parses dates itself) */
  rawTypes?: number[];
  paramTypes?: number[];
  /**
   * the transaction's last statement: COMMIT runs as soon as it has (ROLLBACK if it failed), and
   * the answer waits for that; no EndRequest follows
   */
  commit?: boolean;
}

export interface ExecRequest {
  op: 'exec';
  id: number;
  priority?: boolean;
  text: string;
  txId?: number;
}

/** Opens a transaction; the answer's value is its txId, once BEGIN has run. */
export interface BeginRequest {
  op: 'begin';
  id: number;
  priority?: boolean;
}

/** Ends a transaction: COMMIT or ROLLBACK; the answer comes once it has. */
export interface EndRequest {
  op: 'end';
  id: number;
  txId: number;
  commit: boolean;
}

export interface DumpRequest {
  op: 'dump';
  id: number;
  compression: 'gzip' | 'none';
}

export interface CloseRequest {
  op: 'close';
  id: number;
}

/** Drills only: the worker throws where nothing catches it, as a WebAssembly abort would. */
export interface CrashRequest {
  op: 'crash';
  id: number;
}

export type WorkerRequest = QueryRequest | ExecRequest | BeginRequest | EndRequest | DumpRequest | CloseRequest | CrashRequest;

/** A message between the threads: one request or answer, or the several made in one turn (see batchByTurn). */
export type Batch<T> = T | T[];

/**
 * What one turn of the event loop sends, posted at the turn's end as one message (one item
 * alone, several as a list), in order. Each message wakes the other thread, and on this
 * machine's virtual CPUs a wake-up cost the sender 45-110 µs whatever the message's size (P2).
 * `flush` posts what is waiting now (before the port closes).
 */
export function batchByTurn<T>(post: (message: Batch<T>) => void): { send(item: T): void; flush(): void } {
  let waiting: T[] = [];
  const flush = () => {
    const batch = waiting;
    waiting = [];
    if (batch.length > 0) post(batch.length === 1 ? batch[0]! : batch);
  };
  return {
    send(item) {
      if (waiting.length === 0) queueMicrotask(flush);
      waiting.push(item);
    },
    flush,
  };
}

/** The items of a message, in the order they were sent. */
export function itemsOf<T>(message: Batch<T>): T[] {
  return Array.isArray(message) ? message : [message];
}

/** An error as plain fields: PostgreSQL's (code, detail, constraint …) survive the trip. */
export interface ErrorFields {
  name: string;
  message: string;
  stack?: string;
  fields: Record<string, string | number | boolean>;
}

export type WorkerAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: ErrorFields };

/** The worker's first message: the database is open, or why it could not be. */
export type WorkerStarted = { started: true } | { started: false; error: ErrorFields };

export function errorToFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
  }
  return { name: error.name, message: error.message, stack: error.stack, fields };
}

export function errorFromFields(error: ErrorFields): Error {
  const rebuilt = Object.assign(new Error(error.message), error.fields);
  rebuilt.name = error.name;
  if (error.stack) rebuilt.stack = error.stack;
  return rebuilt;
}
