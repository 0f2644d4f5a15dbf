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
 * classes are these), its answer kept per prototype. Its output is Drizzle's, chunk kind for chunk
 * kind, in the order Drizzle tests them (sql/sql.js, `buildQueryFromSourceParams`, drizzle-orm
 * 0.45). `installSqlRenderer` puts it in place of a database's `sqlToQuery`; under the integration
 * and browser tests every statement is rendered both ways and a difference throws, so a Drizzle
 * upgrade that renders differently fails the suite.
 */

import * as drizzle from 'drizzle-orm';
import type { Column as ColumnType, Param as ParamType, Query, SQL as SQLType } from 'drizzle-orm';
import { isDeepStrictEqual } from 'node:util';
import * as pgCore from 'drizzle-orm/pg-core';
import type { PgDialect } from 'drizzle-orm/pg-core';

// Read once: Drizzle's CommonJS build exports through getters (two or three deep from the package's
// index), and compiled code reads an imported name from its module at every use: inside the loop
// below, those getters took as long as the rendering itself.
const { Column, Name, Param, Placeholder, SQL, StringChunk, Subquery, Table, View, isSQLWrapper } = drizzle;
const { isPgEnum } = pgCore;
const Aliased = SQL.Aliased;

/** Drizzle's keys on tables and views (internal in its types; the same `Symbol.for` names at run time). */
const TABLE_NAME = Symbol.for('drizzle:Name');
const TABLE_SCHEMA = Symbol.for('drizzle:Schema');
const IS_ALIAS = Symbol.for('drizzle:IsAlias');
const VIEW_CONFIG = Symbol.for('drizzle:ViewBaseConfig');

/** What Drizzle keeps internal but renders with: an SQL's inline flag, the dialect's name casing. */
type InlineFlag = { shouldInlineParams: boolean };
type Dialect = Pick<PgDialect, 'escapeName' | 'escapeParam' | 'escapeString' | 'prepareTyping'> & { casing: { getColumnCasing(column: ColumnType): string } };
type Encoder = Parameters<PgDialect['prepareTyping']>[0];
type Typing = ReturnType<PgDialect['prepareTyping']>;

interface Output {
  text: string;
  params: unknown[];
  typings: Typing[];
}

/** A column's parameter typing, kept per column (prepareTyping tests up to nine classes with `is()`). */
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

/**
 * The chunk kinds recognised by class, in the order Drizzle tests them (the other kinds depend on
 * the value: an empty part, a list, an aliased field, an enum, any object with getSQL, a value).
 */
enum Kind {
  StringChunk,
  Name,
  SQL,
  Table,
  Column,
  View,
  Param,
  Placeholder,
  Other,
}

/**
 * A chunk's kind, kept by its prototype: `instanceof` depends on the prototype chain alone (none of
 * these classes defines Symbol.hasInstance), so the answer for one object holds for all that share
 * its prototype, and a chunk costs one lookup instead of up to eight tests.
 */
const kindByPrototype = new WeakMap<object, Kind>();

function kindOf(chunk: unknown): Kind {
  if (typeof chunk !== 'object' || chunk === null) return Kind.Other;
  const prototype = Object.getPrototypeOf(chunk) as object | null;
  if (prototype === null) return Kind.Other;
  let kind = kindByPrototype.get(prototype);
  if (kind === undefined) {
    kind = classKind(chunk);
    kindByPrototype.set(prototype, kind);
  }
  return kind;
}

function classKind(chunk: object): Kind {
  if (chunk instanceof StringChunk) return Kind.StringChunk;
  if (chunk instanceof Name) return Kind.Name;
  if (chunk instanceof SQL) return Kind.SQL;
  if (chunk instanceof Table) return Kind.Table;
  if (chunk instanceof Column) return Kind.Column;
  if (chunk instanceof View) return Kind.View;
  if (chunk instanceof Param) return Kind.Param;
  if (chunk instanceof Placeholder) return Kind.Placeholder;
  return Kind.Other;
}

/** Each dialect's columns as text (see Renderer.qualifiedColumn). */
const columnTexts = new WeakMap<object, WeakMap<object, string>>();

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

  /** A name with its schema in front, as Drizzle writes tables and views: none for an alias or a name without one. */
  private qualified(name: string, schema: string | undefined): string {
    const escaped = this.dialect.escapeName(name);
    return schema === undefined ? escaped : `${this.dialect.escapeName(schema)}.${escaped}`;
  }

  private tableName(table: Record<symbol, unknown>): string {
    return this.qualified(table[TABLE_NAME] as string, table[IS_ALIAS] ? undefined : (table[TABLE_SCHEMA] as string | undefined));
  }

  /** A column as `"table"."column"` (or with its schema), kept per column: its text never changes. */
  private qualifiedColumn(column: ColumnType): string {
    let texts = columnTexts.get(this.dialect);
    if (!texts) columnTexts.set(this.dialect, (texts = new WeakMap()));
    let text = texts.get(column);
    if (text === undefined) {
      text = `${this.tableName(column.table as unknown as Record<symbol, unknown>)}.${this.dialect.escapeName(this.dialect.casing.getColumnCasing(column))}`;
      texts.set(column, text);
    }
    return text;
  }

  private paramChunk(param: ParamType<unknown, unknown>, inline: boolean): void {
    if (param.value instanceof Placeholder) {
      this.param(param, 'none');
      return;
    }
    const mapped = param.value === null ? null : param.encoder.mapToDriverValue(param.value);
    if (mapped instanceof SQL) {
      this.chunk(mapped, inline);
    } else if (inline) {
      this.out.text += inlineValue(this.dialect, mapped);
    } else {
      this.param(mapped, typing(this.dialect, param.encoder as Encoder));
    }
  }

  chunks(chunks: readonly unknown[], inline: boolean): void {
    for (const chunk of chunks) this.chunk(chunk, inline);
  }

  private chunk(chunk: unknown, inline: boolean): void {
    const { dialect } = this;
    switch (kindOf(chunk)) {
      case Kind.StringChunk:
        this.out.text += (chunk as drizzle.StringChunk).value.join('');
        return;
      case Kind.Name:
        this.out.text += dialect.escapeName((chunk as drizzle.Name).value);
        return;
      case Kind.SQL:
        this.chunks((chunk as SQLType).queryChunks, inline || (chunk as unknown as InlineFlag).shouldInlineParams);
        return;
      case Kind.Table:
        this.out.text += this.tableName(chunk as Record<symbol, unknown>);
        return;
      case Kind.Column:
        this.out.text += this.invokeSource === 'indexes' ? dialect.escapeName(dialect.casing.getColumnCasing(chunk as ColumnType)) : this.qualifiedColumn(chunk as ColumnType);
        return;
      case Kind.View: {
        const config = (chunk as Record<symbol, { schema?: string; name: string; isAlias: boolean }>)[VIEW_CONFIG]!;
        this.out.text += this.qualified(config.name, config.isAlias ? undefined : config.schema);
        return;
      }
      case Kind.Param:
        this.paramChunk(chunk as ParamType<unknown, unknown>, inline);
        return;
      case Kind.Placeholder:
        this.param(chunk, 'none');
        return;
      case Kind.Other:
        break;
    }
    if (chunk === undefined) {
      // nothing
    } else if (Array.isArray(chunk)) {
      this.out.text += '(';
      chunk.forEach((item, i) => {
        this.chunk(item, inline);
        if (i < chunk.length - 1) this.out.text += ', ';
      });
      this.out.text += ')';
    } else if (chunk instanceof Aliased && chunk.fieldAlias !== undefined) {
      this.out.text += dialect.escapeName(chunk.fieldAlias);
    } else if (chunk instanceof Subquery) {
      const config = (chunk as unknown as { _: { isWith: boolean; alias: string; sql: SQLType } })._;
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
      const wrapper = chunk as { getSQL(): SQLType; shouldOmitSQLParens?: () => boolean };
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
export function renderSql(dialect: Dialect, statement: SQLType, invokeSource?: 'indexes'): Query & { typings?: Typing[] } {
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
  dialect.sqlToQuery = (statement: SQLType, invokeSource?: 'indexes') => {
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
