import pg from 'pg';

export interface StatementLog {
  /** statements sent since the counter started (or was last taken) */
  take(): string[];
  stop(): void;
}

/**
 * Records every statement any node-postgres client in this process sends (PostgreSQL
 * tests): the hard evidence for round trips per flow.
 */
export function recordPostgresStatements(): StatementLog {
  const original = pg.Client.prototype.query;
  let seen: string[] = [];
  // the overloads of Client#query cannot be restated; the wrapper passes every argument through
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (pg.Client.prototype as any).query = function query(this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    const text =
      typeof first === 'string'
        ? first
        : first && typeof first === 'object' && 'text' in first
          ? String((first as { text: unknown }).text)
          : '?';
    seen.push(text.replace(/\s+/g, ' '));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  };
  return {
    take() {
      const out = seen;
      seen = [];
      return out;
    },
    stop() {
      pg.Client.prototype.query = original;
    },
  };
}
