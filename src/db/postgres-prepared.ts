import { createHash } from 'node:crypto';
import type pg from 'pg';
import { isStaleStatement } from './db-errors';
import { planModeFor } from './pglite-prepared';

/**
 * The product's writes on the PostgreSQL server as named prepared statements.
 *
 * node-postgres sends every statement unnamed, so the server parses, analyses and plans its text at
 * every run. The product's writes are a few dozen texts run over and over (the sign-in's statement
 * at every verification), so a write with parameters is given a name made from its text: each
 * connection prepares it once, and later runs are Bind + Execute only. After five runs PostgreSQL
 * keeps one generic plan when it costs no more than the plans made for the values (its default
 * `plan_cache_mode = auto`); the writes find their rows by key, as on the embedded engine, where they
 * keep one plan outright (pglite-prepared.ts, `planModeFor`: the same rule says what is a write).
 *
 * Reads stay unnamed and are planned for their values at every run: a member search planned for no
 * particular word would walk the list's index. A statement with no parameters (its values written
 * into its text) stays unnamed too, since there can be one text per value.
 *
 * node-postgres never closes a prepared statement, so a connection names at most
 * MAX_NAMED_PER_CONNECTION texts; later ones run unnamed.
 */
export const MAX_NAMED_PER_CONNECTION = 200;

/** The name a write's text is prepared under: the same text always gets the same name, on every connection. */
export function statementName(text: string): string {
  return `gk_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
}

interface QueryConfigLike {
  text: string;
  name?: string;
  values?: unknown[];
}

/** A plain statement object (not a Query or cursor object, which node-postgres submits as it is) that has no name yet. */
function isUnnamedConfig(value: unknown): value is QueryConfigLike {
  if (!value || typeof value !== 'object') return false;
  const config = value as Partial<QueryConfigLike> & { submit?: unknown };
  return typeof config.text === 'string' && !config.name && typeof config.submit !== 'function';
}

/**
 * Makes `client` prepare the writes it runs (see the file's comment). Installed on each connection
 * the pool opens, so statements sent through the pool and through a transaction's client are named alike.
 */
export function prepareWrites(client: pg.ClientBase): void {
  /** the names this connection has given, by text; null for a text given up (see `giveUpOn`) */
  const names = new Map<string, string | null>();
  const nameOf = (text: string): string | undefined => {
    const known = names.get(text);
    if (known !== undefined) return known ?? undefined;
    if (names.size >= MAX_NAMED_PER_CONNECTION || planModeFor(text) !== 'force_generic_plan') return undefined;
    const name = statementName(text);
    names.set(text, name);
    return name;
  };
  /**
   * A named statement the server no longer runs as prepared: a migration changed a table under it (its
   * result's shape, or a column its parameters go to), or the server has no statement of that name (a
   * pooler in front of it ran DISCARD ALL). node-postgres would send it by name again and fail every
   * time, so the text runs unnamed on this connection from now on; the statement that failed fails as
   * it did before.
   */
  const giveUpOn = (text: string, error: unknown) => {
    if (isStaleStatement(error)) names.set(text, null);
  };
  // the class's query() is looked up at each call, not kept from the time the connection was made: a
  // wrapper installed on the class later (a tracer, the tests' statement counter) still sees every statement
  const original = (...args: unknown[]) => (Object.getPrototypeOf(client) as { query: (...a: unknown[]) => unknown }).query.apply(client, args);
  // node-postgres's query() has a dozen overloads (text, config, Query objects; values; callback): a text
  // or a config object is renamed, and every call passes through with the same arguments otherwise
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [first, values] = args;
    const config = typeof first === 'string' ? { text: first } : first;
    if (!isUnnamedConfig(config)) return original(...args);
    const params = Array.isArray(values) ? values : config.values;
    const name = params && params.length > 0 ? nameOf(config.text) : undefined;
    if (!name) return original(...args);
    args[0] = { ...config, name };
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      // the pool's own query() passes a callback
      args[last] = (error: unknown, result: unknown) => {
        if (error) giveUpOn(config.text, error);
        (callback as (error: unknown, result: unknown) => void)(error, result);
      };
      return original(...args);
    }
    const out = original(...args);
    // a config that carries its own callback gets no promise back
    if (!(out instanceof Promise)) return out;
    return out.catch((error: unknown) => {
      giveUpOn(config.text, error);
      throw error;
    });
  };
}
