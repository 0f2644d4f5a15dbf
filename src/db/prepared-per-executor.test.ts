import type { Executor } from './client';
import { preparedPerExecutor, preparedPerShape } from './prepared-per-executor';

describe('statements built once per executor (and shape)', () => {
  // stand-ins: the helpers only key on the executor object
  const database = {} as Executor;
  const transaction = {} as Executor;

  it('builds each shape once per executor, and each shape its own statement', () => {
    const build = jest.fn((executor: Executor, shape: 'first' | 'after') => ({ on: executor, shape }));
    const preparedFor = preparedPerShape(build);
    const first = preparedFor(database, 'first');
    const after = preparedFor(database, 'after');
    expect(preparedFor(database, 'after')).toBe(after);
    expect(preparedFor(database, 'first')).toBe(first);
    expect(after).not.toBe(first);
    expect(build).toHaveBeenCalledTimes(2);
  });

  it('never hands a statement built on the database to a transaction', () => {
    const build = jest.fn((executor: Executor) => ({ on: executor }));
    const preparedFor = preparedPerExecutor(build);
    expect(preparedFor(database)).toBe(preparedFor(database));
    expect(preparedFor(transaction).on).toBe(transaction);
    expect(preparedFor(database).on).toBe(database);
    expect(build).toHaveBeenCalledTimes(2);
  });
});
