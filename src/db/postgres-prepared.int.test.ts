import { sql } from 'drizzle-orm';
import { describeEngines } from '../test-support/database';
import pg from 'pg';
import { MAX_NAMED_PER_CONNECTION, prepareWrites, statementName } from './postgres-prepared';
import { settings } from './schema';

describeEngines('writes as named prepared statements', (getDatabase, engine) => {
  if (engine !== 'postgres') {
    it('has nothing to name on the embedded engine (pglite-prepared.ts keeps every statement)', () => {
      expect(getDatabase().kind).toBe('pglite');
    });
    return;
  }

  /** The statements a connection has prepared, with how its runs were planned. */
  const preparedOn = async (client: pg.ClientBase) =>
    (await client.query(`select name, statement, generic_plans, custom_plans from pg_prepared_statements where name like 'gk\\_%' order by name`)).rows as {
      name: string;
      statement: string;
      generic_plans: string;
      custom_plans: string;
    }[];

  /** A connection of the pool with a table of its own (a temporary one: the pool's other connections do not see it). */
  async function connectionWithTable() {
    const client = await getDatabase().pool!.connect();
    await client.query('create temporary table if not exists kv (key text primary key, value text not null)');
    return client;
  }

  it('prepares a write with parameters once per connection, names it after its text, and keeps one plan after five runs', async () => {
    const client = await connectionWithTable();
    try {
      const upsert = 'insert into kv (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value';
      for (let i = 0; i < 8; i++) await client.query(upsert, ['prepared-test', `v${i}`]);
      const read = await client.query<{ value: string }>('select value from kv where key = $1', ['prepared-test']);
      expect(read.rows).toEqual([{ value: 'v7' }]);
      await client.query(`update kv set value = 'literal' where key = 'prepared-test'`);

      const prepared = await preparedOn(client);
      // the read and the write without parameters stay unnamed
      expect(prepared.map((p) => [p.name, p.statement])).toEqual([[statementName(upsert), upsert]]);
      expect(Number(prepared[0]!.custom_plans)).toBe(5);
      expect(Number(prepared[0]!.generic_plans)).toBe(3);
    } finally {
      client.release();
    }
  });

  it('names the writes drizzle sends, in and out of a transaction, with the same results', async () => {
    const { db } = getDatabase();
    await db.insert(settings).values({ key: 'drizzle-a', value: { n: 1 } });
    const updated = await db.transaction(async (tx) => tx.update(settings).set({ value: { n: 2 } }).where(sql`${settings.key} = ${'drizzle-a'}`).returning({ key: settings.key, value: settings.value }));
    expect(updated).toEqual([{ key: 'drizzle-a', value: { n: 2 } }]);
    const names = await getDatabase().query<{ statement: string }>(`select statement from pg_prepared_statements where name like 'gk\\_%'`);
    // this connection may or may not be the one that ran them; every name it holds is a write's
    for (const { statement } of names.rows) expect(statement).toMatch(/^\s*(insert|update|delete|with)\b/i);
    const [row] = (await getDatabase().query<{ value: unknown }>(`select value from settings where key = 'drizzle-a'`)).rows;
    expect(row).toEqual({ value: { n: 2 } });
  });

  it('names at most MAX_NAMED_PER_CONNECTION texts on one connection; later writes run unnamed and still work', async () => {
    const client = await connectionWithTable();
    try {
      const texts = Array.from({ length: MAX_NAMED_PER_CONNECTION + 5 }, (_, i) => `insert into kv (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value /* ${i} */`);
      for (const [i, text] of texts.entries()) await client.query(text, [`cap-${i}`, String(i)]);
      expect((await preparedOn(client)).length).toBe(MAX_NAMED_PER_CONNECTION);
      const count = await client.query<{ n: string }>(`select count(*) as n from kv where key like 'cap-%'`);
      expect(Number(count.rows[0]!.n)).toBe(texts.length);
    } finally {
      client.release();
    }
  });

  it('reports a failing write as before, and the same text then runs on the same connection', async () => {
    const client = await connectionWithTable();
    try {
      const insert = 'insert into kv (key, value) values ($1, $2)';
      await client.query(insert, ['dup', 'a']);
      await expect(client.query(insert, ['dup', 'b'])).rejects.toMatchObject({ code: '23505' });
      await client.query(insert, ['dup-2', 'c']);
      const bad = 'insert into kv (key, nope) values ($1, $2)';
      await expect(client.query(bad, ['x', 'y'])).rejects.toMatchObject({ code: '42703' });
      await expect(client.query(bad, ['x', 'y'])).rejects.toMatchObject({ code: '42703' });
    } finally {
      client.release();
    }
  });

  it('runs a text unnamed from then on when its prepared statement went stale: a table changed under it, or the server dropped it', async () => {
    // a connection of its own: the pool's may have named its share of texts already
    const client = new pg.Client({ connectionString: (getDatabase().pool!.options as { connectionString: string }).connectionString });
    await client.connect();
    prepareWrites(client);
    await client.query('create temporary table kv (key text primary key, value text not null)');
    try {
      // a migration changes the type of the column a parameter goes to: the type inferred at the first run no longer fits
      const upsert = 'insert into kv (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value';
      await client.query(upsert, ['stale', '1']);
      await client.query('alter table kv alter column value type integer using value::integer');
      await expect(client.query(upsert, ['stale', '2'])).rejects.toMatchObject({ code: '42804' });
      await client.query(upsert, ['stale', '3']);
      await client.query(upsert, ['stale', '3']);
      // the prepared statement ran once, before the change; the runs since were sent unnamed
      const runs = (await preparedOn(client)).filter((p) => p.statement === upsert).map((p) => Number(p.custom_plans) + Number(p.generic_plans));
      expect(runs).toEqual([1]);

      // a migration adds a column to what a statement returns
      const returning = 'insert into kv (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value returning *';
      expect((await client.query(returning, ['stale', '4'])).rows).toEqual([{ key: 'stale', value: 4 }]);
      await client.query('alter table kv add column note text');
      await expect(client.query(returning, ['stale', '5'])).rejects.toMatchObject({ code: '0A000' });
      expect((await client.query(returning, ['stale', '6'])).rows).toEqual([{ key: 'stale', value: 6, note: null }]);

      // a pooler's DISCARD ALL drops the connection's statements; the pool's own query() (callback form) is covered too
      const other = 'update kv set value = $2 where key = $1';
      await client.query(other, ['stale', '7']);
      expect((await preparedOn(client)).map((p) => p.statement)).toContain(other);
      await client.query('deallocate all');
      await expect(client.query(other, ['stale', '8'])).rejects.toMatchObject({ code: '26000' });
      await client.query(other, ['stale', '9']);
      await new Promise<void>((resolve, reject) => client.query(other, ['stale', '10'], (error) => (error ? reject(error) : resolve())));
      // node-postgres also takes the callback inside the config, and then answers no promise
      await new Promise<void>((resolve, reject) => {
        const config = { text: `${other} and true`, values: ['stale', '11'], callback: (error: Error | null) => (error ? reject(error) : resolve()) };
        expect(client.query(config as unknown as pg.QueryConfig)).toBeUndefined();
      });
      expect((await client.query('select value from kv where key = $1', ['stale'])).rows).toEqual([{ value: 11 }]);
      expect((await preparedOn(client)).map((p) => p.statement)).toContain(`${other} and true`);
    } finally {
      await client.end();
    }
  });
});
