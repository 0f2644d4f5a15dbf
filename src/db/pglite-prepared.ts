import { randomBytes } from 'node:crypto';
import { parse, protocol, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';
import { isStaleStatement, sqlState, STATEMENT_DROPPED } from './db-errors';

/**
 * Parameterised statements on PGlite as named prepared statements, one protocol call each.
 *
 * PGlite's own `query` sends six protocol messages, each a separate call into the WebAssembly
 * engine (Parse, Describe statement, Bind, Describe portal, Execute, Sync), and PostgreSQL parses
 * and plans the text every time. Here each text is prepared once (Parse + Describe: its parameter
 * types and its row shape are kept) and every later run is one call of Bind + Execute + Sync.
 * Measured on this machine, with the plans below: a primary-key select 1.27–2.04 → 0.82–0.89 ms,
 * a one-row upsert 1.21–1.49 → 0.35–0.37 ms. Results and parameters are PGlite's own: its
 * `parseResults`, parsers, serialisers and options (`rowMode`, `parsers`, `paramTypes`). Against
 * the hand-written result parser this replaced (array rows, as Drizzle reads them; 2,000 runs,
 * five rounds): a one-row read 62–67 → 63–81 µs, a 48-row page 336–353 → 350–364 µs.
 *
 * Reads are planned for their values at every run, as with PGlite's `query`: the session runs with
 * `plan_cache_mode = force_custom_plan`. A kept read would otherwise switch to one plan for any
 * values after five runs, and a member search (`username ilike $1`) planned for no particular word
 * walks the list's index, which for a rare word means the whole table.
 *
 * Writes keep one plan (`force_generic_plan`): the product's writes find their rows by key, or are
 * the verification's statements whose reads are bounded the same way whatever the values, and
 * planning them was most of their time (the sign-in's statement: 0.8–1.4 ms of planning for
 * 1.0–1.5 ms of execution, EXPLAIN ANALYZE in P2). The mode is switched only when the next
 * statement needs the other one: with SET outside a transaction, with SET LOCAL inside one
 * (undone when it ends, so the session's mode is always the one set outside).
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
/**
 * Of those, the most kept with no parameters: a statement with its values in its text (sql-literal.ts)
 * is a new one for every word staff search, each kept plan costs the worker about 100 kB (450 words
 * searched: +47 MB), and a stream of new words must not push the product's own statements out.
 */
const MAX_VALUE_STATEMENTS = 64;

type Message = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];
type Parsers = Parameters<typeof parse.parseResults>[1];

interface Prepared {
  name: string;
  /** the parameter types PostgreSQL settled on, by position */
  paramTypes: number[];
  /** its RowDescription (none when it returns no rows): a run's answer holds only the rows, so it goes before them */
  description: Message[];
  /**
   * the database's parsers for its columns' types only: `parseResults` copies the parsers it is
   * given at every call, and the database's (over 300) took as long as a one-row read (0.15 ms)
   */
  parsers: Parsers;
  /** how its runs are planned (planModeFor, read from its text once) */
  planMode: PlanMode;
}

const DATE_TYPES = new Set([1082, 1114, 1184]); // date, timestamp, timestamptz
const BYTEA = 17;

/**
 * A parameter as the text PostgreSQL receives. Dates and byte arrays are written here (as PGlite's
 * serialisers write them) so that one made in another realm (a test file's) is not refused: their
 * kind is read from their tag, not `instanceof`. The rest go through PGlite's serialiser for the
 * parameter's type, or `toString`, as PGlite's `query` does.
 */
function serializeParam(pglite: PGlite, value: unknown, type: number | undefined, options: QueryOptions | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object' && type !== undefined) {
    if (DATE_TYPES.has(type) && Object.prototype.toString.call(value) === '[object Date]') return (value as Date).toISOString();
    if (type === BYTEA && ArrayBuffer.isView(value)) {
      return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
    }
  }
  const serializer = type === undefined ? undefined : (options?.serializers?.[type] ?? pglite.serializers[type]);
  return serializer ? serializer(value) : String(value);
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
  /** the session's plan_cache_mode, as last set outside a transaction */
  private sessionMode: PlanMode = 'force_custom_plan';
  /** the mode a transaction's SET LOCAL gave it, by transaction (the session's until then) */
  private readonly transactionModes = new WeakMap<OpenTransaction, PlanMode>();

  private constructor(private readonly pglite: PGlite) {}

  /** Statements on `pglite`, whose session plans reads for their values from now on; no transaction may be open on it. */
  static async open(pglite: PGlite): Promise<PreparedStatements> {
    await pglite.exec('set plan_cache_mode = force_custom_plan');
    return new PreparedStatements(pglite);
  }

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
    const failed = (error: unknown) => Promise.reject(withQuery(error, text, params, options));
    return this.pglite._runExclusiveQuery(async () => {
      try {
        return await this.execute<T>(text, params, options, tx);
      } catch (error) {
        if (!isStaleStatement(error)) return failed(error);
        // a statement that does not exist any more means they were all dropped (DEALLOCATE ALL): forget them all
        if (sqlState(error) === STATEMENT_DROPPED) this.statements.clear();
        else this.giveUp(this.keyOf(text, options));
        // outside a transaction nothing else was undone: prepare the text again; inside, the transaction has failed
        return tx ? failed(error) : this.execute<T>(text, params, options, tx).catch(failed);
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

  private async execute<T>(text: string, params: unknown[], options: QueryOptions | undefined, tx?: OpenTransaction): Promise<Results<T>> {
    const statement = await this.prepared(text, options);
    await this.usePlanMode(statement.planMode, tx);
    const values = params.map((value, i) => serializeParam(this.pglite, value, statement.paramTypes[i], options));
    const messages = await this.pglite.execProtocolStream(
      Buffer.concat([
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    return parse.parseResults([...statement.description, ...messages], statement.parsers, options)[0] as Results<T>;
  }

  /** The text's prepared statement, preparing it (and closing the least recently used beyond the limit) when new. */
  private async prepared(text: string, options: QueryOptions | undefined): Promise<Prepared> {
    const key = this.keyOf(text, options);
    const known = this.statements.get(key);
    if (known) {
      this.statements.delete(key); // re-inserted: the Map's order is the use order
      this.statements.set(key, known);
      return known;
    }
    if (this.statements.size >= MAX_STATEMENTS) this.giveUp(this.statements.keys().next().value as string);
    const name = `${this.prefix}${++this.counter}`;
    // Parse + Describe (+ Sync), after closing the statements given up (closing one that no longer exists is not an error)
    const messages = await this.pglite.execProtocolStream(
      Buffer.concat([
        ...this.toClose.splice(0).map((old) => protocol.serialize.close({ type: 'S', name: old })),
        protocol.serialize.parse({ name, text, types: options?.paramTypes ?? [] }),
        protocol.serialize.describe({ type: 'S', name }),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const description = messages.filter((message) => message.name === 'rowDescription');
    const fields = (description[0] as (Message & { fields: { dataTypeID: number }[] }) | undefined)?.fields ?? [];
    const parsers: Parsers = {};
    for (const { dataTypeID } of fields) if (this.pglite.parsers[dataTypeID]) parsers[dataTypeID] = this.pglite.parsers[dataTypeID];
    const statement = {
      name,
      paramTypes: parse.parseDescribeStatementResults(messages),
      description,
      parsers,
      planMode: planModeFor(text),
    };
    if (statement.paramTypes.length === 0) {
      // its kind is known once parsed: the least recently used of its kind is closed with the next preparation
      const valueKeys = [...this.statements].filter(([, kept]) => kept.paramTypes.length === 0).map(([kept]) => kept);
      if (valueKeys.length >= MAX_VALUE_STATEMENTS) this.giveUp(valueKeys[0]!);
    }
    this.statements.set(key, statement);
    return statement;
  }
}
