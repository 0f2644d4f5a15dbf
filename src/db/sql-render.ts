import { Column, Name, Param, Placeholder, SQL, StringChunk, Subquery, Table, View, isSQLWrapper, type Query } from 'drizzle-orm';
import { isDeepStrictEqual } from 'node:util';
import { isPgEnum, type PgDialect } from 'drizzle-orm/pg-core';

/**
 * Statement text from Drizzle's SQL trees, written in one pass.
 *
 * Drizzle renders a statement (`SQL.toQuery`) by recursion that builds a `{sql, params}` object
 * for every chunk and merges them level by level, and it recognises each chunk with `is()`, which
 * walks the chunk's prototype chain once per kind it is not: a parameter is tested against eight
 * kinds before it is found to be one. The verification's statements have hundreds of chunks, and
 * in a CPU profile of the bench's verification flows that rendering was 12% of the main thread
 * (`is()` alone 5%), time every request waits for.
 *
 * This renderer walks the same tree in the same order and writes into one string and one list of
 * parameters, recognising chunks with `instanceof` (the product loads one copy of Drizzle, whose
 * classes are these). Its output is Drizzle's, chunk kind for chunk kind, in the order Drizzle
 * tests them (sql/sql.js, `buildQueryFromSourceParams`, drizzle-orm 0.45). `installSqlRenderer`
 * puts it in place of a database's `sqlToQuery`; under the integration tests every statement is
 * rendered both ways and a difference throws, so a Drizzle upgrade that renders differently fails
 * the suite.
 */

/** Drizzle's keys on tables and views (internal in its types; the same `Symbol.for` names at run time). */
const TABLE_NAME = Symbol.for('drizzle:Name');
const TABLE_SCHEMA = Symbol.for('drizzle:Schema');
const IS_ALIAS = Symbol.for('drizzle:IsAlias');
const VIEW_CONFIG = Symbol.for('drizzle:ViewBaseConfig');

/** What Drizzle keeps internal but renders with: an SQL's inline flag, the dialect's name casing. */
type InlineFlag = { shouldInlineParams: boolean };
type Dialect = Pick<PgDialect, 'escapeName' | 'escapeParam' | 'escapeString' | 'prepareTyping'> & { casing: { getColumnCasing(column: Column): string } };
type Encoder = Parameters<PgDialect['prepareTyping']>[0];
type Typing = ReturnType<PgDialect['prepareTyping']>;

interface Output {
  text: string;
  params: unknown[];
  typings: Typing[];
}

/** A column's typing by its class (prepareTyping tests up to nine classes with `is()`). */
const typingOf = new WeakMap<object, Typing>();

function typing(dialect: Dialect, encoder: Encoder): Typing {
  if (typeof encoder !== 'object' || encoder === null) return dialect.prepareTyping(encoder);
  let known = typingOf.get(encoder);
  if (known === undefined) {
    known = dialect.prepareTyping(encoder);
    typingOf.set(encoder, known);
  }
  return known;
}

/** A value written into the text (an SQL marked `inlineParams`), as Drizzle's `mapInlineParam` writes it. */
function inlineValue(dialect: Dialect, value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return value.toString();
  if (typeof value === 'string') return dialect.escapeString(value);
  if (typeof value === 'object') {
    const text = (value as object).toString();
    return dialect.escapeString(text === '[object Object]' ? JSON.stringify(value) : text);
  }
  throw new Error(`Unexpected param value: ${String(value)}`);
}

class Renderer {
  private readonly out: Output = { text: '', params: [], typings: [] };

  constructor(
    private readonly dialect: Dialect,
    private readonly invokeSource: 'indexes' | undefined,
  ) {}

  result(): Query & { typings?: Typing[] } {
    const { text, params, typings } = this.out;
    return params.length > 0 ? { sql: text, params, typings } : { sql: text, params };
  }

  private param(value: unknown, typed: Typing): void {
    this.out.text += this.dialect.escapeParam(this.out.params.length);
    this.out.params.push(value);
    this.out.typings.push(typed);
  }

  chunks(chunks: readonly unknown[], inline: boolean): void {
    for (const chunk of chunks) this.chunk(chunk, inline);
  }

  private chunk(chunk: unknown, inline: boolean): void {
    const { dialect } = this;
    if (chunk instanceof StringChunk) {
      this.out.text += chunk.value.join('');
    } else if (chunk instanceof Name) {
      this.out.text += dialect.escapeName(chunk.value);
    } else if (chunk === undefined) {
      // nothing
    } else if (Array.isArray(chunk)) {
      this.out.text += '(';
      chunk.forEach((item, i) => {
        this.chunk(item, inline);
        if (i < chunk.length - 1) this.out.text += ', ';
      });
      this.out.text += ')';
    } else if (chunk instanceof SQL) {
      this.chunks(chunk.queryChunks, inline || (chunk as unknown as InlineFlag).shouldInlineParams);
    } else if (chunk instanceof Table) {
      const table = chunk as unknown as Record<symbol, unknown>;
      const schema = table[TABLE_SCHEMA] as string | undefined;
      const name = dialect.escapeName(table[TABLE_NAME] as string);
      this.out.text += schema === undefined || table[IS_ALIAS] ? name : `${dialect.escapeName(schema)}.${name}`;
    } else if (chunk instanceof Column) {
      const column = dialect.escapeName(dialect.casing.getColumnCasing(chunk));
      if (this.invokeSource === 'indexes') {
        this.out.text += column;
        return;
      }
      const table = chunk.table as unknown as Record<symbol, unknown>;
      const schema = table[TABLE_SCHEMA] as string | undefined;
      const tableName = dialect.escapeName(table[TABLE_NAME] as string);
      this.out.text += table[IS_ALIAS] || schema === undefined ? `${tableName}.${column}` : `${dialect.escapeName(schema)}.${tableName}.${column}`;
    } else if (chunk instanceof View) {
      const config = (chunk as unknown as Record<symbol, { schema?: string; name: string; isAlias: boolean }>)[VIEW_CONFIG]!;
      const name = dialect.escapeName(config.name);
      this.out.text += config.schema === undefined || config.isAlias ? name : `${dialect.escapeName(config.schema)}.${name}`;
    } else if (chunk instanceof Param) {
      const param = chunk as Param<unknown, unknown>;
      if (param.value instanceof Placeholder) {
        this.param(param, 'none');
        return;
      }
      const mapped = param.value === null ? null : param.encoder.mapToDriverValue(param.value);
      if (mapped instanceof SQL) {
        this.chunk(mapped, inline);
      } else if (inline) {
        this.out.text += inlineValue(dialect, mapped);
      } else {
        this.param(mapped, typing(dialect, param.encoder as Encoder));
      }
    } else if (chunk instanceof Placeholder) {
      this.param(chunk, 'none');
    } else if (chunk instanceof SQL.Aliased && chunk.fieldAlias !== undefined) {
      this.out.text += dialect.escapeName(chunk.fieldAlias);
    } else if (chunk instanceof Subquery) {
      const config = (chunk as unknown as { _: { isWith: boolean; alias: string; sql: SQL } })._;
      if (config.isWith) {
        this.out.text += dialect.escapeName(config.alias);
        return;
      }
      this.out.text += '(';
      this.chunk(config.sql, inline);
      this.out.text += `) ${dialect.escapeName(config.alias)}`;
    } else if (isPgEnum(chunk)) {
      this.out.text += chunk.schema ? `${dialect.escapeName(chunk.schema)}.${dialect.escapeName(chunk.enumName)}` : dialect.escapeName(chunk.enumName);
    } else if (isSQLWrapper(chunk)) {
      const wrapper = chunk as { getSQL(): SQL; shouldOmitSQLParens?: () => boolean };
      if (wrapper.shouldOmitSQLParens?.()) {
        this.chunk(wrapper.getSQL(), inline);
        return;
      }
      this.out.text += '(';
      this.chunk(wrapper.getSQL(), inline);
      this.out.text += ')';
    } else if (inline) {
      this.out.text += inlineValue(dialect, chunk);
    } else {
      this.param(chunk, 'none');
    }
  }
}

/** A statement's text, parameters and their typings, as Drizzle's `sql.toQuery` gives them with this dialect. */
export function renderSql(dialect: Dialect, statement: SQL, invokeSource?: 'indexes'): Query & { typings?: Typing[] } {
  const renderer = new Renderer(dialect, invokeSource);
  renderer.chunks(statement.queryChunks, (statement as unknown as InlineFlag).shouldInlineParams);
  return renderer.result();
}

/** Whether each statement is rendered by Drizzle too and compared (the tests turn it on: test-support/check-sql-rendering.ts). */
let checkAgainstDrizzle = false;

/** Turns the comparison with Drizzle's rendering on or off for every database of this process. */
export function checkRenderingAgainstDrizzle(on: boolean): void {
  checkAgainstDrizzle = on;
}

/**
 * Renders every statement of `db` with renderSql. While checkRenderingAgainstDrizzle is on, each
 * one is rendered by Drizzle too, and a difference throws.
 */
export function installSqlRenderer(db: object): void {
  // Drizzle keeps its dialect on the database (and hands the same object to every transaction)
  const dialect = (db as { dialect?: PgDialect & Dialect }).dialect;
  if (!dialect || typeof dialect.sqlToQuery !== 'function') throw new Error('installSqlRenderer: this database has no Drizzle dialect');
  const drizzleRender = dialect.sqlToQuery.bind(dialect);
  dialect.sqlToQuery = (statement: SQL, invokeSource?: 'indexes') => {
    const query = renderSql(dialect, statement, invokeSource);
    if (checkAgainstDrizzle) {
      const expected = drizzleRender(statement, invokeSource);
      if (!sameQuery(query, expected)) {
        throw new Error(`renderSql differs from Drizzle's rendering:\n${JSON.stringify(query)}\n${JSON.stringify(expected)}`);
      }
    }
    return query;
  };
}

function sameQuery(a: Query & { typings?: unknown[] }, b: Query & { typings?: unknown[] }): boolean {
  return a.sql === b.sql && isDeepStrictEqual(a.params, b.params) && isDeepStrictEqual(a.typings, b.typings);
}
