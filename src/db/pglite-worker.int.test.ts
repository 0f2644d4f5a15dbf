import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import diagnostics from 'node:diagnostics_channel';
import { MessagePort } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import { openPglite, selectRows, type Database } from './client';
import { runMigrations } from './migrate';
import { asLastStatement } from './last-statement';

jest.setTimeout(120_000);

/** The embedded database in its worker thread: what the product opens on a data folder. */
describe('the embedded database in its worker thread', () => {
  let dir: string;
  let database: Database;
  let crashes: Error[];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-worker-'));
    crashes = [];
    database = await openPglite(dir, { onWorkerCrash: (error) => crashes.push(error) });
    await runMigrations(database);
    await database.exec('create table t (id int primary key, at timestamptz, body bytea, doc jsonb, big int8)');
  });
  afterAll(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers raw SQL with PGlite types intact (dates, bytes, JSON, int8)', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    await database.query('insert into t values ($1, $2, $3, $4, $5)', [
      1,
      at,
      new Uint8Array([1, 2, 3]),
      { a: [1, 'x'] },
      9_007_199_254_740_993n,
    ]);
    const { rows } = await database.query<{ at: Date; body: Uint8Array; doc: unknown; big: bigint }>(
      'select at, body, doc, big from t where id = 1',
    );
    expect(rows[0]!.at).toEqual(at);
    expect(Array.from(rows[0]!.body)).toEqual([1, 2, 3]);
    expect(rows[0]!.doc).toEqual({ a: [1, 'x'] });
    expect(String(rows[0]!.big)).toBe('9007199254740993');
  });

  it("keeps PostgreSQL's error fields across the thread boundary", async () => {
    const error = (await database.query('insert into t (id) values (1)').catch((e: unknown) => e)) as Record<string, unknown>;
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('23505');
    expect(error.constraint).toBe('t_pkey');
  });

  it('serves Drizzle, whose date parsers keep the text it parses itself', async () => {
    const rows = await selectRows<{ at: string }>(database.db, sql`select at from t where id = 1`);
    expect(typeof rows[0]!.at).toBe('string');
  });

  it('commits a transaction, rolls back a failed one, and makes other statements wait for it', async () => {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into t (id) values (2)`);
    });
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into t (id) values (3)`);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');

    const order: string[] = [];
    let inside!: () => void;
    const opened = new Promise<void>((resolve) => (inside = resolve));
    const transaction = database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into t (id) values (4)`);
      inside();
      await new Promise((resolve) => setTimeout(resolve, 200));
      order.push('transaction');
    });
    await opened;
    // outside the transaction: must not see its row half-done, nor run inside it
    const outside = database.query<{ n: number }>('select count(*)::int as n from t where id = 4').then((r) => {
      order.push('outside');
      return r.rows[0]!.n;
    });
    await transaction;
    expect(await outside).toBe(1);
    expect(order).toEqual(['transaction', 'outside']);
    const ids = (await database.query<{ id: number }>('select id from t order by id')).rows.map((r) => r.id);
    expect(ids).toEqual([1, 2, 4]);
  });

  it('takes the connection with the transaction’s first statement, not before: other statements run meanwhile', async () => {
    let ready!: () => void;
    const building = new Promise<void>((resolve) => (ready = resolve));
    const transaction = database.db.transaction(async (tx) => {
      await building; // the main thread is still preparing the first statement
      await tx.execute(sql`insert into t (id) values (7)`);
      return (await selectRows<{ n: number }>(tx, sql`select count(*)::int as n from t where id = 7`))[0];
    });
    // not held up by the transaction, which has sent nothing yet (it used to hold the connection from its start)
    const outside = database.query<{ n: number }>('select count(*)::int as n from t where id = 7').then((r) => r.rows[0]!.n);
    const blocked = new Promise((resolve) => setTimeout(() => resolve('blocked'), 2_000));
    expect(await Promise.race([outside, blocked])).toBe(0);
    ready();
    expect(await transaction).toEqual({ n: 1 });
    // a transaction whose work runs no statement commits nothing and holds nothing
    expect(await database.db.transaction(async () => 'nothing to run')).toBe('nothing to run');
    // a failed first statement rolls its transaction back, and the connection is free again
    await expect(database.db.transaction(async (tx) => tx.execute(sql`insert into t (id) values (7)`))).rejects.toMatchObject({
      cause: { code: '23505' },
    });
    expect((await database.query<{ n: number }>('select count(*)::int as n from t where id = 7')).rows[0]!.n).toBe(1);
  });

  it('sends the statements of one turn as one message and answers each its own, failures included', async () => {
    const posted = jest.spyOn(MessagePort.prototype, 'postMessage');
    try {
      const answers = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          i === 17 ? database.query('select 1 / 0 as n') : database.query<{ n: number }>('select $1::int * 2 as n', [i]),
        ),
      );
      expect(posted).toHaveBeenCalledTimes(1);
      answers.forEach((answer, i) => {
        if (i === 17) expect(answer).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
        else expect(answer).toEqual({ status: 'fulfilled', value: expect.objectContaining({ rows: [{ n: i * 2 }] }) });
      });
      // a transaction's BEGIN and first statement are one message too
      posted.mockClear();
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        expect(posted).toHaveBeenCalledTimes(1);
      });
    } finally {
      posted.mockRestore();
    }
  });

  it('settles answers that arrived when an HTTP request starts, before their own turn of the event loop', async () => {
    let settled = false;
    const answer = database.query<{ n: number }>('select 41 + 1 as n').then((result) => {
      settled = true;
      return result;
    });
    await null; // the request is posted at the end of this turn (a microtask)
    const requestStart = diagnostics.channel('http.server.request.start');
    const pause = new Int32Array(new SharedArrayBuffer(4));
    // only microtasks from here on: the port's 'message' event cannot run, so the answer is settled only by the drain
    for (let waited = 0; !settled && waited < 5_000; waited += 20) {
      Atomics.wait(pause, 0, 0, 20); // the worker answers meanwhile
      requestStart.publish({});
      for (let i = 0; i < 5; i++) await null;
    }
    expect(settled).toBe(true);
    expect((await answer).rows).toEqual([{ n: 42 }]);
  });

  it("commits with a transaction's last statement: one message there and back, the connection free when it answers", async () => {
    const posted = jest.spyOn(MessagePort.prototype, 'postMessage');
    try {
      const result = await database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into t (id) values (20)`);
        posted.mockClear();
        const rows = await asLastStatement(tx, () => selectRows<{ id: number }>(tx, sql`insert into t (id) values (21) returning id`));
        // the statement and its COMMIT went as one request (this thread's messages are counted)
        expect(posted).toHaveBeenCalledTimes(1);
        // committed already: a statement outside the transaction runs now (before, it waited for the
        // transaction's end, which this function's return sends: this would never have answered)
        const outside = database.query<{ n: number }>('select count(*)::int as n from t where id in (20, 21)').then((r) => r.rows[0]!.n);
        const blocked = new Promise((resolve) => setTimeout(() => resolve('blocked'), 2_000));
        expect(await Promise.race([outside, blocked])).toBe(2);
        // and nothing more runs in it
        await expect(tx.execute(sql`select 1`)).rejects.toMatchObject({
          cause: { message: expect.stringMatching(/transaction has ended/) },
        });
        return rows;
      });
      expect(result).toEqual([{ id: 21 }]);
      // the statement outside, and no end request after the function returned
      expect(posted).toHaveBeenCalledTimes(2);
    } finally {
      posted.mockRestore();
    }
  });

  it("rolls the transaction back when its last statement fails, with the statement's error", async () => {
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`insert into t (id) values (22)`);
        await asLastStatement(tx, () => tx.execute(sql`insert into t (id) values (22)`));
      }),
    ).rejects.toMatchObject({ cause: { code: '23505' } });
    // a transaction of one statement, its last, which fails: the same
    await expect(database.db.transaction(async (tx) => asLastStatement(tx, () => tx.execute(sql`select 1 / 0`)))).rejects.toMatchObject({
      cause: { code: '22012' },
    });
    expect((await database.query<{ n: number }>('select count(*)::int as n from t where id = 22')).rows[0]!.n).toBe(0);
    // the connection is free again
    expect((await database.query<{ n: number }>('select 1 as n')).rows).toEqual([{ n: 1 }]);
  });

  it('rolls back nested savepoints on their own', async () => {
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into t (id) values (5)`);
      await tx
        .transaction(async (inner) => {
          await inner.execute(sql`insert into t (id) values (6)`);
          throw new Error('inner only');
        })
        .catch(() => undefined);
    });
    const ids = (await database.query<{ id: number }>('select id from t where id in (5, 6) order by id')).rows.map((r) => r.id);
    expect(ids).toEqual([5]);
  });

  it('dumps the data folder between two transactions', async () => {
    const dump = await database.pglite!.dumpDataDir('gzip');
    expect(dump.size).toBeGreaterThan(1000);
  });

  it('runs pg-boss style scripts: several statements, the last result answered', async () => {
    const result = await database.executeSql('select 1 as a; select 2 as b');
    expect(result.rows).toEqual([{ b: 2 }]);
  });

  it('keeps its crash handler silent while healthy', () => {
    expect(crashes).toEqual([]);
  });
});

describe('the worker ending', () => {
  it('on close: flushes, releases the lock, and the data is there on reopening', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-worker-close-'));
    try {
      const first = await openPglite(dir, { onWorkerCrash: () => undefined });
      await first.exec('create table kept (n int); insert into kept values (7)');
      await first.close();
      expect(fs.existsSync(path.join(dir, 'gatekeeper.lock'))).toBe(false);
      const second = await openPglite(dir);
      expect((await second.query<{ n: number }>('select n from kept')).rows).toEqual([{ n: 7 }]);
      await second.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('by a crash: waiting statements fail, the crash is reported once, and the lock is released', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-worker-crash-'));
    try {
      const crashes: Error[] = [];
      const reported = new Promise<void>((resolve) => {
        void openPglite(dir, {
          crashOnSigusr2: true,
          onWorkerCrash: (error) => {
            crashes.push(error);
            resolve();
          },
        }).then(async (database) => {
          process.emit('SIGUSR2');
          // a statement sent as the worker dies must fail, not hang
          expect(await database.query('select 1').catch((e: unknown) => e)).toBeInstanceOf(Error);
          await expect(database.query('select 1')).rejects.toThrow(/worker stopped/);
        });
      });
      await reported;
      expect(crashes).toHaveLength(1);
      expect(crashes[0]!.message).toMatch(/made to crash/);
      expect(fs.existsSync(path.join(dir, 'gatekeeper.lock'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
