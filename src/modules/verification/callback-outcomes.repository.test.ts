import type { Executor } from '../../db/client';
import { silentLogger } from '../../logger';
import { createCallbackOutcomes } from './callback-outcomes.repository';

/** A database whose every read fails with `error` (the chain select → from → where, as the repository builds it). */
function failingReads(error: Error): Executor {
  const where = () => Promise.reject(error);
  // only the read's chain is needed here; the rest of Executor is never touched
  return { select: () => ({ from: () => ({ where }) }) } as unknown as Executor;
}

describe('waiting for a callback another request took', () => {
  const outcomesOn = (db: Executor) =>
    createCallbackOutcomes<string>({
      db,
      clock: { now: () => new Date() },
      logger: silentLogger,
      kind: 'visitor',
      runningMs: 1000,
      keepMs: 1000,
      parse: (v) => (typeof v === 'string' ? v : null),
    });

  it('keeps waiting (running) while the database is too busy to give a connection, rather than losing the sign-in', async () => {
    const busy = new Error('Failed query: select', { cause: new Error('timeout exceeded when trying to connect') });
    await expect(outcomesOn(failingReads(busy)).wait('s'.repeat(64), 'c'.repeat(64), 0)).resolves.toEqual({ kind: 'running' });
  });

  it('says unavailable for any other failure', async () => {
    await expect(outcomesOn(failingReads(new Error('syntax error'))).wait('s'.repeat(64), 'c'.repeat(64), 0)).resolves.toEqual({
      kind: 'unavailable',
    });
  });
});
