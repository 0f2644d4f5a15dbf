import { randomBytes } from 'node:crypto';
import { parse, protocol, types, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';
import { isStaleStatement, sqlState, STATEMENT_DROPPED } from './db-errors';

/**
 * Parameterised statements on PGlite as named prepared statements, one protocol call each.
 *
 * PGlite's own `query` sends six protocol messages, each a separate call into the WebAssembly
 * engine (Parse, Describe statement, Bind, Describe portal, Execute, Sync), and PostgreSQL parses
 * and plans the text every time. The product runs the same few dozen statement texts over and
 * over, so each text is prepared once (Parse + Describe: its parameter types and its row shape are
 * kept) and every later run is one call of Bind + Execute + Sync. Measured on this machine, with
 * the custom plans below: a primary-key select 1.27–2.04 → 0.82–0.89 ms, a one-row upsert
 * 1.21–1.49 → 0.35–0.37 ms.
 *
 * Results are the ones PGlite's `query` gives (its parsers, `rowMode`, `parsers` options); values
 * are serialised as PGlite does (its serialisers by the statement's parameter types).
 *
 * Reads are planned for their values at every run, as with PGlite's `query`: the session runs with
 * `plan_cache_mode = force_custom_plan`. A kept read would otherwise switch to one generic plan
 * after five runs, and a member search (`username ilike $1`) planned for no particular word walks
 * the list's index, which for a rare word means the whole table. The setting is made by the first
 * statement outside a transaction; until then statements run unnamed, planned for their values
 * and not kept.
 *
 * Writes keep one plan (`force_generic_plan`, see `planModeFor`): the product's writes find their
 * rows by key, or are the verification's statements whose reads are bounded the same way whatever
 * the values, and planning them was a large part of their time (the sign-in's statement: 0.8-1.4
 * ms of planning for 1.0-1.5 ms of execution, measured with EXPLAIN ANALYZE in P2). The mode is
 * switched only when the next statement needs the other one: with a plain SET outside a
 * transaction, with SET LOCAL inside one (undone when it ends, committed or rolled back, so the
 * session's mode is always the one set outside).
 */

/** How PostgreSQL plans a kept statement's runs: for their values each time, or one plan kept. */
export type PlanMode = 'force_custom_plan' | 'force_generic_plan';

/** An INSERT, UPDATE or DELETE statement. */
const WRITE = /^\s*(?:insert|update|delete)\b/i;
/** In a WITH statement: a part that writes (`name as (insert …`), or a main statement that does (`…) update …`). */
const WITH_WRITE = /\bas\s*\(\s*(?:insert|update|delete)\b|\)\s*(?:insert|update|delete)\b/i;

/** Writes keep one plan; everything else is planned for its values (see the file's comment). */
export function planModeFor(text: string): PlanMode {
  const writes = WRITE.test(text) || (/^\s*with\b/i.test(text) && WITH_WRITE.test(text));
  return writes ? 'force_generic_plan' : 'force_custom_plan';
}

/** Statements kept per database; the least recently used is closed beyond this. */
const MAX_STATEMENTS = 500;

type Message = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

interface Prepared {
  name: string;
  /** the parameter types PostgreSQL settled on, by position */
  paramTypes: number[];
  /** the statement's columns (empty when it returns no rows), as each run's result names them */
  fields: Results['fields'];
  /** how its runs are planned (planModeFor, read from its text once, when it is prepared) */
  planMode: PlanMode;
}

const DATE_TYPES = new Set([1082, 1114, 1184]); // date, timestamp, timestamptz
const BYTEA = 17;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The kind of a value by its tag, not `instanceof`: test files pass values made in another realm. */
function tagOf(value: object): string {
  return Object.prototype.toString.call(value);
}

/**
 * A parameter as the text PostgreSQL receives. Dates and byte arrays are written here (as PGlite's
 * serialisers write them) so that one made in another realm is not refused; the rest go through
 * PGlite's serialiser for the parameter's type, or `toString`, as PGlite's `query` does.
 */
function serializeParam(pglite: PGlite, value: unknown, type: number | undefined, options: QueryOptions | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object' && type !== undefined) {
    if (DATE_TYPES.has(type) && tagOf(value) === '[object Date]') return (value as Date).toISOString();
    if (type === BYTEA && ArrayBuffer.isView(value)) {
      return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
    }
  }
  const serializer = type === undefined ? undefined : (options?.serializers?.[type] ?? pglite.serializers[type]);
  return serializer ? serializer(value) : String(value);
}

type RowDescription = Message & { fields: { name: string; dataTypeID: number }[] };
type ValueParser = (value: string, type: number) => unknown;

/**
 * One run's result, as PGlite's `parse.parseResults` gives it for a single statement: its rows
 * (objects by column name, or arrays with `rowMode: 'array'`), values parsed by the run's
 * `parsers`, else the database's, else PGlite's defaults, and the rows it changed. Done here
 * rather than by `parseResults`, which copies the database's parsers (over 300, one per type and
 * array type) into a new object at every call: measured in this file's micro-benchmark, that copy
 * took as long as running the statement (0.15 ms for a one-row, one-column read).
 */
function resultOf<T>(messages: Message[], fields: Results['fields'], pglite: PGlite, options: QueryOptions | undefined): Results<T> {
  const parsers: (ValueParser | undefined)[] = fields.map(
    ({ dataTypeID }) =>
      (options?.parsers?.[dataTypeID] ?? pglite.parsers[dataTypeID] ?? types.parsers[dataTypeID]) as ValueParser | undefined,
  );
  const parseValue = (value: string | null, column: number): unknown => {
    if (value === null) return null;
    const parser = parsers[column];
    return parser ? parser(value, fields[column]!.dataTypeID) : value;
  };
  const rows: unknown[] = [];
  let affectedRows = 0;
  for (const message of messages) {
    if (message.name === 'dataRow') {
      const values = (message as Message & { fields: (string | null)[] }).fields;
      if (options?.rowMode === 'array') rows.push(values.map(parseValue));
      else {
        const row: Record<string, unknown> = {};
        for (let column = 0; column < values.length; column++) row[fields[column]!.name] = parseValue(values[column]!, column);
        rows.push(row);
      }
    } else if (message.name === 'commandComplete') affectedRows += affectedRowsOf((message as Message & { text: string }).text);
  }
  return { rows: rows as T[], fields, affectedRows };
}

/** The rows a command tag says were changed ("INSERT 0 3", "UPDATE 2" …), as PGlite counts them. */
function affectedRowsOf(tag: string): number {
  const words = tag.split(' ');
  switch (words[0]) {
    case 'INSERT':
      return parseInt(words[2]!, 10);
    case 'UPDATE':
    case 'DELETE':
    case 'COPY':
    case 'MERGE':
      return parseInt(words[1]!, 10);
    default:
      return 0;
  }
}

/** The details PGlite's own `query` adds to a failed statement's error. */
function withQuery(error: unknown, text: string, params: unknown[], options: QueryOptions | undefined): unknown {
  if (error && typeof error === 'object') Object.assign(error, { query: text, params, queryOptions: options });
  return error;
}

/** A transaction statements run in (pglite-transaction.ts, or PGlite's own): known by identity, refused once closed. */
export interface OpenTransaction {
  readonly closed: boolean;
}

export class PreparedStatements {
  /** statements by key, least recently used first */
  private readonly statements = new Map<string, Prepared>();
  /** statements given up (stale or beyond the limit), closed with the next preparation */
  private readonly toClose: string[] = [];
  private counter = 0;
  /** names of this instance's statements: a PGlite the tests hand from one file to the next may hold another's */
  private readonly prefix = `gk_${randomBytes(4).toString('hex')}_`;
  /** plan_cache_mode was set for this session (outside any transaction): statements may be kept */
  private sessionModeSet = false;
  /** the session's plan_cache_mode, as last set outside a transaction */
  private sessionMode: PlanMode = 'force_custom_plan';
  /** the mode a transaction's SET LOCAL gave it, by transaction (the session's until then) */
  private readonly transactionModes = new WeakMap<OpenTransaction, PlanMode>();

  constructor(private readonly pglite: PGlite) {}

  /** A statement outside any transaction: it waits for an open transaction to end, as PGlite's `query` does. */
  async query<T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    await this.pglite._checkReady();
    return this.pglite._runExclusiveTransaction(async () => {
      const result = await this.run<T>(text, params, options);
      await this.pglite.syncToFs();
      return result;
    });
  }

  /** A statement inside `tx` (the caller holds PGlite's transaction lock). */
  async queryIn<T>(tx: OpenTransaction, text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    if (tx.closed) throw new Error('Transaction is closed');
    return this.run<T>(text, params, options, tx);
  }

  /** The session's plan mode, set by the first statement outside a transaction; until then statements run unnamed. */
  private async setSessionMode(tx: OpenTransaction | undefined): Promise<void> {
    if (this.sessionModeSet || tx) return;
    await this.pglite.execProtocolStream(protocol.serialize.query('set plan_cache_mode = force_custom_plan'), { syncToFs: false });
    this.sessionModeSet = true;
    this.sessionMode = 'force_custom_plan';
  }

  /** Sets the plan mode a kept statement needs, when the session (or the transaction `tx`) has the other one. */
  private async usePlanMode(wanted: PlanMode, tx: OpenTransaction | undefined): Promise<void> {
    const current = tx ? (this.transactionModes.get(tx) ?? this.sessionMode) : this.sessionMode;
    if (wanted === current) return;
    await this.pglite.execProtocolStream(protocol.serialize.query(`set ${tx ? 'local ' : ''}plan_cache_mode = ${wanted}`), {
      syncToFs: false,
    });
    if (tx) this.transactionModes.set(tx, wanted);
    else this.sessionMode = wanted;
  }

  private async run<T>(text: string, params: unknown[], options: QueryOptions | undefined, tx?: OpenTransaction): Promise<Results<T>> {
    const outsideTransaction = tx === undefined;
    return this.pglite._runExclusiveQuery(async () => {
      await this.setSessionMode(tx);
      try {
        return await this.execute<T>(text, params, options, tx);
      } catch (error) {
        if (!isStaleStatement(error)) throw withQuery(error, text, params, options);
        // a statement that does not exist any more means they were all dropped (DEALLOCATE ALL): forget them all
        if (sqlState(error) === STATEMENT_DROPPED) this.statements.clear();
        else this.giveUp(this.keyOf(text, options));
        // outside a transaction nothing else was undone: prepare the text again; inside, the transaction has failed
        if (!outsideTransaction) throw withQuery(error, text, params, options);
        try {
          return await this.execute<T>(text, params, options, tx);
        } catch (retryError) {
          throw withQuery(retryError, text, params, options);
        }
      }
    });
  }

  private giveUp(key: string): void {
    const statement = this.statements.get(key);
    if (!statement) return;
    this.statements.delete(key);
    this.toClose.push(statement.name);
  }

  private keyOf(text: string, options: QueryOptions | undefined): string {
    return options?.paramTypes?.length ? `${options.paramTypes.join(',')}\n${text}` : text;
  }

  private async execute<T>(
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
    tx: OpenTransaction | undefined,
  ): Promise<Results<T>> {
    const statement = await this.prepared(text, options);
    // an unnamed statement is planned for its values whatever the mode
    if (statement.name) await this.usePlanMode(statement.planMode, tx);
    const values = params.map((value, i) => serializeParam(this.pglite, value, statement.paramTypes[i], options));
    const messages = await this.pglite.execProtocolStream(
      concat([protocol.serialize.bind({ statement: statement.name, values }), protocol.serialize.execute({}), protocol.serialize.sync()]),
      { syncToFs: false },
    );
    return resultOf<T>(messages, statement.fields, this.pglite, options);
  }

  /**
   * The text's prepared statement, preparing it (and closing the least recently used beyond the limit) when
   * new; the unnamed statement, not kept, while the session may still plan kept statements generically.
   */
  private async prepared(text: string, options: QueryOptions | undefined): Promise<Prepared> {
    if (!this.sessionModeSet) return this.parse('', text, options);
    const key = this.keyOf(text, options);
    const known = this.statements.get(key);
    if (known) {
      this.statements.delete(key); // re-inserted: the Map's order is the use order
      this.statements.set(key, known);
      return known;
    }
    if (this.statements.size >= MAX_STATEMENTS) this.giveUp(this.statements.keys().next().value as string);
    // closing a statement that no longer exists is not an error
    const parts = this.toClose.splice(0).map((old) => protocol.serialize.close({ type: 'S', name: old }));
    const statement = await this.parse(`${this.prefix}${++this.counter}`, text, options, parts);
    this.statements.set(key, statement);
    return statement;
  }

  /** Parse + Describe (+ Sync), after any closes waiting in `before`: the statement's parameter types and row shape. */
  private async parse(name: string, text: string, options: QueryOptions | undefined, before: Uint8Array[] = []): Promise<Prepared> {
    const messages = await this.pglite.execProtocolStream(
      concat([
        ...before,
        protocol.serialize.parse({ name, text, types: options?.paramTypes ?? [] }),
        protocol.serialize.describe({ type: 'S', name }),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const rowDescription = messages.find((m) => m.name === 'rowDescription') as RowDescription | undefined;
    const fields = rowDescription ? rowDescription.fields.map((field) => ({ name: field.name, dataTypeID: field.dataTypeID })) : [];
    return { name, paramTypes: parse.parseDescribeStatementResults(messages), fields, planMode: planModeFor(text) };
  }
}
