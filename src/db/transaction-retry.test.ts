import { retryOnConflict, retryOnLostConnection, retryOnSqlState, retryWhileUncommitted } from './transaction-retry';

describe('retryOnConflict', () => {
  const pgError = (code: string) => Object.assign(new Error('pg'), { code });

  it('retries deadlocks and serialization failures, also when wrapped', async () => {
    let calls = 0;
    const result = await retryOnConflict(async () => {
      calls++;
      if (calls === 1) throw pgError('40P01');
      if (calls === 2) throw new Error('wrapped', { cause: pgError('40001') });
      return 'ok';
    });
    expect(result).toBe('ok');
    expect(calls).toBe(3);
  });

  it('gives up after the last attempt and never retries other errors', async () => {
    let calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls++;
        throw pgError('40P01');
      }, 2),
    ).rejects.toThrow('pg');
    expect(calls).toBe(2);
    calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls++;
        throw pgError('23505');
      }),
    ).rejects.toThrow('pg');
    expect(calls).toBe(1);
  });
});

describe('retryOnSqlState', () => {
  it('retries only the states it is given, and says each retry', async () => {
    const seen: [number, string][] = [];
    let calls = 0;
    const result = await retryOnSqlState(
      async () => {
        calls++;
        if (calls < 3) throw Object.assign(new Error('pg'), { code: '42P07' });
        return 'set up';
      },
      { states: new Set(['42P07']), baseDelayMs: 1, onRetry: (attempt, code) => seen.push([attempt, code]) },
    );
    expect(result).toBe('set up');
    expect(seen).toEqual([
      [1, '42P07'],
      [2, '42P07'],
    ]);
    await expect(
      retryOnSqlState(
        async () => {
          throw Object.assign(new Error('pg'), { code: '40P01' });
        },
        { states: new Set(['42P07']), baseDelayMs: 1 },
      ),
    ).rejects.toThrow('pg');
  });
});

describe('retryWhileUncommitted', () => {
  const terminated = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

  it('runs the work again while the connection is lost before it commits, and says each retry', async () => {
    const retries: number[] = [];
    let calls = 0;
    const result = await retryWhileUncommitted(
      async () => {
        calls++;
        if (calls === 1) throw terminated();
        // node-postgres' own message, wrapped by Drizzle, with no SQLSTATE
        if (calls === 2) throw new Error('Failed query: rollback', { cause: new Error('Connection terminated unexpectedly') });
        return 'kept';
      },
      { baseDelayMs: 1, onRetry: (attempt) => retries.push(attempt) },
    );
    expect(result).toBe('kept');
    expect(calls).toBe(3);
    expect(retries).toEqual([1, 2]);
  });

  it('never runs it again once it reached its commit, nor for any other error', async () => {
    let calls = 0;
    await expect(
      retryWhileUncommitted(
        async (committing) => {
          calls++;
          committing('unsure');
          throw terminated();
        },
        { baseDelayMs: 1 },
      ),
    ).rejects.toThrow('administrator command');
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      retryWhileUncommitted(
        async () => {
          calls++;
          throw Object.assign(new Error('duplicate key'), { code: '23505' });
        },
        { baseDelayMs: 1 },
      ),
    ).rejects.toThrow('duplicate key');
    expect(calls).toBe(1);
  });

  it('asks whether a commit whose answer was lost was kept: the value its run gave if it was, the work again if not', async () => {
    // kept: the work is not run again, and the value the run gave at its commit is the result
    let calls = 0;
    let asked = 0;
    const kept = await retryWhileUncommitted<string>(
      async (committing) => {
        calls++;
        committing('kept after all');
        throw terminated();
      },
      {
        baseDelayMs: 1,
        wasKept: async (value) => {
          asked++;
          return value === 'kept after all';
        },
      },
    );
    expect(kept).toBe('kept after all');
    expect([calls, asked]).toEqual([1, 1]);

    // not kept: the work runs again, and the second run's value is the result
    calls = 0;
    const again = await retryWhileUncommitted<string>(
      async (committing) => {
        calls++;
        committing('first run');
        if (calls === 1) throw terminated();
        return 'second run';
      },
      { baseDelayMs: 1, wasKept: async () => false },
    );
    expect(again).toBe('second run');
    expect(calls).toBe(2);

    // the outcome is asked again while the database is still away
    asked = 0;
    const later = await retryWhileUncommitted<string>(
      async (committing) => {
        committing('kept');
        throw terminated();
      },
      {
        baseDelayMs: 1,
        wasKept: async () => {
          asked++;
          if (asked < 3) throw new Error('connect ECONNREFUSED', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
          return true;
        },
      },
    );
    expect([later, asked]).toEqual(['kept', 3]);
  });

  it('throws the lost commit as it is when whether it was kept cannot be read, or for any other error', async () => {
    let calls = 0;
    await expect(
      retryWhileUncommitted(
        async (committing) => {
          calls++;
          committing('unsure');
          throw terminated();
        },
        {
          attempts: 3,
          baseDelayMs: 1,
          wasKept: async () => {
            throw terminated();
          },
        },
      ),
    ).rejects.toThrow('administrator command');
    expect(calls).toBe(1);
    // the outcome is asked only for a lost connection: a commit that failed otherwise was not kept, and is not retried
    let asked = 0;
    await expect(
      retryWhileUncommitted(
        async (committing) => {
          committing('failed');
          throw Object.assign(new Error('deferred constraint'), { code: '23503' });
        },
        {
          baseDelayMs: 1,
          wasKept: async () => {
            asked++;
            return true;
          },
        },
      ),
    ).rejects.toThrow('deferred constraint');
    expect(asked).toBe(0);
  });

  it('gives up after the last attempt', async () => {
    let calls = 0;
    await expect(
      retryWhileUncommitted(
        async () => {
          calls++;
          throw terminated();
        },
        { attempts: 3, baseDelayMs: 1 },
      ),
    ).rejects.toThrow('administrator command');
    expect(calls).toBe(3);
  });
});

describe('retryOnLostConnection', () => {
  it('runs harmless work again on a lost connection, and only then', async () => {
    let calls = 0;
    const result = await retryOnLostConnection(
      async () => {
        calls++;
        if (calls === 1) throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
        return 'used';
      },
      { baseDelayMs: 1 },
    );
    expect(result).toBe('used');
    expect(calls).toBe(2);
    calls = 0;
    await expect(
      retryOnLostConnection(
        async () => {
          calls++;
          throw Object.assign(new Error('check violation'), { code: '23514' });
        },
        { baseDelayMs: 1 },
      ),
    ).rejects.toThrow('check violation');
    expect(calls).toBe(1);
  });
});
