import type { Executor } from './client';

/**
 * Statements of one family whose text depends on a few choices (a list's filter, its kind of
 * search, whether it has a cursor), each built once per executor the first time it is asked for:
 * `build` makes it with `sql.placeholder(…)` for its values and `.prepare(name)`, and each run
 * only fills the values in. Drizzle otherwise rebuilds a statement's SQL tree, its text and its
 * driver query object at every call, which in a CPU profile of the visitor flows was several per
 * cent of the main thread; on PostgreSQL a name also makes it a named statement, parsed once per
 * connection. The VPN cache's read, 5,000 runs in one thread on PGlite: 255, 261, 215 -> 136,
 * 225, 121 µs a read. `key` names the shape and must take few values, since every shape built is
 * kept. A statement prepared on the database runs on the database's connection, not in a
 * transaction: inside one, pass the transaction (it gets its own, built on first use there).
 */
export function preparedPerShape<Key extends string, Prepared>(
  build: (executor: Executor, key: Key) => Prepared,
): (executor: Executor, key: Key) => Prepared {
  const built = new WeakMap<Executor, Map<Key, Prepared>>();
  return (executor, key) => {
    let shapes = built.get(executor);
    if (shapes === undefined) built.set(executor, (shapes = new Map()));
    let prepared = shapes.get(key);
    if (prepared === undefined) shapes.set(key, (prepared = build(executor, key)));
    return prepared;
  };
}

/** A statement of one shape only (every value a placeholder), built once per executor as above. */
export function preparedPerExecutor<Prepared>(build: (executor: Executor) => Prepared): (executor: Executor) => Prepared {
  const perShape = preparedPerShape((executor: Executor, _only: 'only') => build(executor));
  return (executor) => perShape(executor, 'only');
}
