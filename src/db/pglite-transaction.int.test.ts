import { PGlite } from '@electric-sql/pglite';
import { PreparedStatements } from './pglite-prepared';
import { runTransaction } from './pglite-transaction';

jest.setTimeout(60_000);

describe('PGlite transactions with one message for BEGIN and one for COMMIT', () => {
  let pglite: PGlite;
  let prepared: PreparedStatements;
  const count = async () => (await pglite.query<{ n: number }>('select count(*)::int as n from t')).rows[0]!.n;

  beforeAll(async () => {
    pglite = await PGlite.create();
    await pglite.exec('create table t (id int primary key)');
    prepared = await PreparedStatements.open(pglite);
  });
  afterAll(async () => pglite.close());
  beforeEach(async () => {
    await pglite.exec('truncate t');
  });

  it('commits when the function returns, and other statements wait until then', async () => {
    const order: string[] = [];
    let inside!: () => void;
    const opened = new Promise<void>((resolve) => (inside = resolve));
    const transaction = runTransaction(pglite, async (tx) => {
      await prepared.queryIn(tx, 'insert into t values ($1)', [1]);
      inside();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await prepared.queryIn(tx, 'insert into t values ($1)', [2]);
      order.push('transaction');
      return 'done';
    });
    await opened;
    const outside = prepared
      .query<{ n: number }>('select count(*)::int as n from t')
      .then((result) => (order.push('outside'), result.rows[0]!.n));
    expect(await transaction).toBe('done');
    expect(await outside).toBe(2);
    expect(order).toEqual(['transaction', 'outside']);
    expect(pglite.isInTransaction()).toBe(false);
  });

  it("rolls back when the function throws, with the function's error, and the connection is free again", async () => {
    await expect(
      runTransaction(pglite, async (tx) => {
        await prepared.queryIn(tx, 'insert into t values ($1)', [1]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    // a statement that fails: its own error, and the transaction undone
    await expect(
      runTransaction(pglite, async (tx) => {
        await prepared.queryIn(tx, 'insert into t values ($1)', [1]);
        await prepared.queryIn(tx, 'insert into t values ($1)', [1]);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await count()).toBe(0);
    expect(pglite.isInTransaction()).toBe(false);
  });

  it('rolls back when asked to, and then refuses more statements', async () => {
    await runTransaction(pglite, async (tx) => {
      await prepared.queryIn(tx, 'insert into t values ($1)', [1]);
      await tx.rollback();
      await expect(prepared.queryIn(tx, 'insert into t values ($1)', [2])).rejects.toThrow('Transaction is closed');
      await expect(tx.exec('select 1')).rejects.toThrow('Transaction is closed');
    });
    expect(await count()).toBe(0);
  });

  it('runs scripts with exec: one result per statement, an error with its fields, undone with the rest', async () => {
    const results = await runTransaction(pglite, (tx) => tx.exec('insert into t values (1); select id from t'));
    expect(results.map((result) => result.rows)).toEqual([[], [{ id: 1 }]]);
    await expect(runTransaction(pglite, (tx) => tx.exec('insert into t values (2); select 1 / 0'))).rejects.toMatchObject({
      code: '22012',
    });
    expect(await count()).toBe(1);
  });

  it("refuses a transaction's statement once it has ended", async () => {
    let kept: Parameters<Parameters<typeof runTransaction>[1]>[0] | undefined;
    await runTransaction(pglite, async (tx) => {
      kept = tx;
    });
    expect(kept!.closed).toBe(true);
    await expect(prepared.queryIn(kept!, 'insert into t values ($1)', [1])).rejects.toThrow('Transaction is closed');
  });
});
