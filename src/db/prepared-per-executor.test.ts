import type { Executor } from './client';
import { preparedPerExecutor, preparedPerShape } from './prepared-per-executor';

describe('preparedPerExecutor', () => {
  // stand-ins: the helper only keys on the executor object
  const database = {} as Executor;
  const transaction = {} as Executor;

  it('builds a statement once per executor and gives the same one back after', () => {
    const build = jest.fn((executor: Executor) => ({ on: executor }));
    const preparedFor = preparedPerExecutor(build);
    const first = preparedFor(database);
    expect(preparedFor(database)).toBe(first);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('builds another for another executor (a transaction), never reusing the database one there', () => {
    const preparedFor = preparedPerExecutor((executor: Executor) => ({ on: executor }));
    expect(preparedFor(transaction).on).toBe(transaction);
    expect(preparedFor(database).on).toBe(database);
    expect(preparedFor(transaction)).not.toBe(preparedFor(database));
  });
});

describe('preparedPerShape', () => {
  const database = {} as Executor;
  const transaction = {} as Executor;

  it('builds each shape once per executor, and each shape its own statement', () => {
    const build = jest.fn((executor: Executor, shape: 'first' | 'after') => ({ on: executor, shape }));
    const preparedFor = preparedPerShape(build);
    const first = preparedFor(database, 'first');
    const after = preparedFor(database, 'after');
    expect(preparedFor(database, 'first')).toBe(first);
    expect(preparedFor(database, 'after')).toBe(after);
    expect(after).not.toBe(first);
    expect(after.shape).toBe('after');
    expect(build).toHaveBeenCalledTimes(2);
  });

  it('never hands a shape built on the database to a transaction', () => {
    const preparedFor = preparedPerShape((executor: Executor, shape: 'first') => ({ on: executor, shape }));
    expect(preparedFor(database, 'first').on).toBe(database);
    expect(preparedFor(transaction, 'first').on).toBe(transaction);
  });
});
