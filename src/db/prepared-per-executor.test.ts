import type { Executor } from './client';
import { preparedPerExecutor } from './prepared-per-executor';

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
