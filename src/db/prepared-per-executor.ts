import type { Executor } from './client';

/**
 * A statement Drizzle builds once per database (or transaction) and keeps: `build` makes it with
 * `sql.placeholder(…)` for its values and `.prepare(name)`, and each run only fills the values in.
 * Drizzle otherwise rebuilds a statement's SQL tree, its text and its driver query object at every
 * call, which in a CPU profile of the visitor flows was several per cent of the main thread; on
 * PostgreSQL the name also makes it a named statement, parsed once per connection. The VPN cache's
 * read, 5,000 runs in one thread on PGlite: 255, 261, 215 -> 136, 225, 121 µs a read.
 *
 * Only for a statement whose text never changes with its values (every value a placeholder). A
 * statement prepared on the database runs on the database's connection, not in a transaction:
 * inside one, pass the transaction (it gets its own, built on first use there).
 */
export function preparedPerExecutor<Prepared>(build: (executor: Executor) => Prepared): (executor: Executor) => Prepared {
  const built = new WeakMap<Executor, Prepared>();
  return (executor) => {
    let prepared = built.get(executor);
    if (prepared === undefined) {
      prepared = build(executor);
      built.set(executor, prepared);
    }
    return prepared;
  };
}

/**
 * Statements of one family whose text depends on a few choices (a list's filter, whether it has a
 * cursor): each shape is built once per executor, as above, the first time it is asked for. `key`
 * names the shape and must take few values, since every shape built is kept.
 */
export function preparedPerShape<Key extends string, Prepared>(
  build: (executor: Executor, key: Key) => Prepared,
): (executor: Executor, key: Key) => Prepared {
  const built = new WeakMap<Executor, Map<Key, Prepared>>();
  return (executor, key) => {
    let shapes = built.get(executor);
    if (shapes === undefined) {
      shapes = new Map();
      built.set(executor, shapes);
    }
    let prepared = shapes.get(key);
    if (prepared === undefined) {
      prepared = build(executor, key);
      shapes.set(key, prepared);
    }
    return prepared;
  };
}
