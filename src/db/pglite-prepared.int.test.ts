import { PGlite } from '@electric-sql/pglite';
import { describeOn } from '../test-support/engine-pass';
import { planModeFor, PreparedStatements } from './pglite-prepared';

// The product's statements on PGlite go through PreparedStatements (the worker thread, the in-process client):
// what they return must be what PGlite's own `query` returns, and a kept statement must never answer stale.
describeOn('pglite')('PGlite statements as prepared statements', () => {
  let pglite: PGlite;
  let prepared: PreparedStatements;

  beforeAll(async () => {
    pglite = await PGlite.create();
    await pglite.exec(`
      create table things (id int primary key, name text not null, at timestamptz, data jsonb, bytes bytea, tags text[], big bigint, ok boolean, amount numeric);
      insert into things values (1, 'one', '2026-05-02T10:00:00Z', '{"a": [1, 2]}', '\\x010203', '{x,y}', 9007199254740993, true, 12.50);
    `);
    prepared = await PreparedStatements.open(pglite);
  });

  afterAll(async () => {
    await pglite.close();
  });

  const preparedCount = async () => (await pglite.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements`)).rows[0]!.n;

  it('returns what PGlite’s own query returns: rows, fields, parsed types, nulls, array rows, no rows, affected rows', async () => {
    const same = async (text: string, params: unknown[], options?: { rowMode: 'array' }) => {
      const mine = await prepared.query(text, params, options);
      const theirs = await pglite.query(text, params, options);
      expect({ rows: mine.rows, fields: mine.fields, affectedRows: mine.affectedRows }).toEqual({
        rows: theirs.rows,
        fields: theirs.fields,
        affectedRows: theirs.affectedRows,
      });
      return mine;
    };
    const one = await same('select * from things where id = $1 and at < $2', [1, new Date('2027-01-01T00:00:00Z')]);
    expect(one.rows[0]).toMatchObject({ id: 1, name: 'one', data: { a: [1, 2] }, tags: ['x', 'y'], big: 9007199254740993n, ok: true });
    const many = await same(
      'select g as n, case when g % 2 = 0 then null else g::text end as odd, array[g, g * 10]::int[] as pair from generate_series(1, $1::int) g',
      [5],
    );
    expect(many.rows[1]).toEqual({ n: 2, odd: null, pair: [2, 20] });
    expect((await same('select null::jsonb as j, $1::bool as b', [false], { rowMode: 'array' })).rows).toEqual([[null, false]]);
    expect((await same('select id from things where id = $1', [-1])).fields).toEqual([{ name: 'id', dataTypeID: 23 }]);
    await same('create temp table if not exists scratch (n int)', []);
    expect((await prepared.query('insert into scratch select generate_series(1, $1::int)', [4])).affectedRows).toBe(4);
    expect((await prepared.query('update scratch set n = n + 1 where n > $1', [1])).affectedRows).toBe(3);
    expect((await prepared.query('delete from scratch where n > $1', [0])).affectedRows).toBe(4);
    expect((await prepared.query('delete from scratch where n > $1', [0])).fields).toEqual([]);
    await prepared.query('update things set name = $1 where id = $2', ['uno', 1]);
  });

  it('serialises every kind of parameter as PGlite does, dates and byte arrays included', async () => {
    const text =
      'insert into things (id, name, at, data, bytes, tags, big, ok, amount) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *';
    const values = (id: number) => [
      id,
      'two',
      new Date('2026-06-01T12:30:00.250Z'),
      { nested: { b: 'c' } },
      new Uint8Array([255, 0, 7]),
      ['p', 'q'],
      42n,
      false,
      '3.14',
    ];
    const mine = await prepared.query(text, values(2));
    const theirs = await pglite.query(text, values(3));
    expect({ ...mine.rows[0]!, id: 0 }).toEqual({ ...theirs.rows[0]!, id: 0 });
    expect(mine.rows[0]).toMatchObject({
      at: new Date('2026-06-01T12:30:00.250Z'),
      data: { nested: { b: 'c' } },
      bytes: new Uint8Array([255, 0, 7]),
      amount: '3.14',
    });
    expect((await prepared.query('select $1::text as v, $2::int as n', [null, undefined])).rows).toEqual([{ v: null, n: null }]);
  });

  it('honours rowMode, per-query parsers and declared parameter types', async () => {
    expect((await prepared.query('select id, name from things where id = $1', [1], { rowMode: 'array' })).rows).toEqual([[1, 'uno']]);
    const raw = await prepared.query<{ at: string }>('select at from things where id = $1', [1], {
      parsers: { 1184: (value: string) => value },
    });
    expect(typeof raw.rows[0]!.at).toBe('string');
    expect((await prepared.query('select $1 as v', ['7'], { paramTypes: [23] })).rows).toEqual([{ v: 7 }]);
    expect((await prepared.query('select $1 as v', ['7'])).rows).toEqual([{ v: '7' }]);
  });

  it('parses a text once: later runs reuse the statement', async () => {
    const before = await preparedCount();
    for (let i = 0; i < 3; i++) await prepared.query('select name from things where id = $1 -- reuse check', [1]);
    expect(await preparedCount()).toBe(before + 1);
  });

  it('plans every run for its own values, as PGlite’s query does: never one generic plan for a kept read', async () => {
    await pglite.exec(`create index things_name_idx on things (name)`);
    const text = 'select id from things where name like $1 order by id limit 5 -- plans';
    for (const word of ['o%', 'x%', '%n%', 'two', 't%', 'u%', 'q%', '%']) await prepared.query(text, [word]);
    const { rows } = await pglite.query<{ generic_plans: number; custom_plans: number }>(
      `select generic_plans::int, custom_plans::int from pg_prepared_statements where statement = $1`,
      [text],
    );
    expect(rows).toEqual([{ generic_plans: 0, custom_plans: 8 }]);
  });

  const plansOf = async (text: string) =>
    (
      await pglite.query<{ generic_plans: number; custom_plans: number }>(
        `select generic_plans::int, custom_plans::int from pg_prepared_statements where statement = $1`,
        [text],
      )
    ).rows;
  const sessionMode = async () => (await pglite.query<{ mode: string }>(`select current_setting('plan_cache_mode') as mode`)).rows[0]!.mode;

  it('keeps one plan for a write, outside and inside transactions, and the session goes back to planning reads per run', async () => {
    const write = 'update things set amount = $1 where id = $2 -- generic';
    const read = 'select id from things where name like $1 order by id limit 5 -- custom after writes';
    for (let i = 0; i < 3; i++) {
      await prepared.query(write, [i, 1]);
      await prepared.query(read, ['o%']);
    }
    expect(await plansOf(write)).toEqual([{ generic_plans: 3, custom_plans: 0 }]);
    expect(await plansOf(read)).toEqual([{ generic_plans: 0, custom_plans: 3 }]);
    await pglite.transaction(async (tx) => {
      await prepared.queryIn(tx, write, [7, 1]);
      await prepared.queryIn(tx, read, ['u%']);
      await prepared.queryIn(tx, write, [8, 1]);
    });
    expect(await plansOf(write)).toEqual([{ generic_plans: 5, custom_plans: 0 }]);
    expect(await plansOf(read)).toEqual([{ generic_plans: 0, custom_plans: 4 }]);
    // a transaction that switched to kept plans and rolled back: its SET LOCAL is undone with it, the session plans reads per run
    await prepared.query(read, ['o%']);
    await expect(
      pglite.transaction(async (tx) => {
        await prepared.queryIn(tx, write, [9, 1]);
        await prepared.queryIn(tx, 'insert into things (id, name) values ($1, $2)', [1, 'duplicate']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await sessionMode()).toBe('force_custom_plan');
    await prepared.query(read, ['t%']);
    expect(await plansOf(read)).toEqual([{ generic_plans: 0, custom_plans: 6 }]);
  });

  it('tells the writes from the reads by their text', () => {
    const writes = [
      'insert into "one_time_tokens" ("token_hash") values ($1)',
      '  update things set name = $1',
      'DELETE from things where id = $1',
      'with signed_in as (insert into "members" ("id") values ($1) returning *) select * from signed_in',
      'with "due" as (select "id" from "discord_outbox" where status = $1) update "discord_outbox" set status = $2 from due',
      'with write_0 as (update "members" set "gate_action" = $1), write_1 as (insert into x values ($2)) select 1',
      'with confirmed as (\n update "members" set rules_confirmed = true where discord_id = $1 returning discord_id) select 1',
    ];
    const reads = [
      'select id from members where username ilike $1',
      'with w (m) as (select member_id from verification_attempts where created_at > $1) select count(*) from w',
      'select "id", "updated_at" from "members" where "status" = $1',
      'select save_alt_links($1::bigint, $2::jsonb)',
    ];
    expect(writes.map(planModeFor)).toEqual(writes.map(() => 'force_generic_plan'));
    expect(reads.map(planModeFor)).toEqual(reads.map(() => 'force_custom_plan'));
  });

  it('fails a bad statement with PostgreSQL’s error and the query attached, and goes on working', async () => {
    await expect(prepared.query('insert into things (id, name) values ($1, $2)', [1, 'again'])).rejects.toMatchObject({
      code: '23505',
      query: 'insert into things (id, name) values ($1, $2)',
    });
    await expect(prepared.query('selec nothing', [])).rejects.toMatchObject({ code: '42601' });
    expect((await prepared.query('select count(*)::int as n from things', [])).rows).toEqual([{ n: 3 }]);
  });

  it('prepares again when the table changed under a kept statement, or the statements were dropped', async () => {
    const text = 'select * from things where id = $1';
    expect(Object.keys((await prepared.query(text, [1])).rows[0]!)).not.toContain('extra');
    await pglite.exec('alter table things add column extra text');
    expect(Object.keys((await prepared.query(text, [1])).rows[0]!)).toContain('extra');
    await pglite.exec('deallocate all');
    expect((await prepared.query(text, [1])).rows).toHaveLength(1);
    // inside a transaction PostgreSQL has already failed it: the error stands, and the text is prepared again next time
    await pglite.exec('deallocate all');
    await expect(pglite.transaction((tx) => prepared.queryIn(tx, text, [1]))).rejects.toMatchObject({ code: '26000' });
    await pglite.transaction(async (tx) => expect((await prepared.queryIn(tx, text, [1])).rows).toHaveLength(1));
  });

  it('prepares a write again when a column its parameter goes to changed type (the type inferred at the first run no longer fits)', async () => {
    await pglite.exec('create table counters (id int primary key, n text)');
    const upsert = 'insert into counters (id, n) values ($1, $2) on conflict (id) do update set n = excluded.n';
    await prepared.query(upsert, [1, '5']);
    await pglite.exec('alter table counters alter column n type integer using n::integer');
    await prepared.query(upsert, [1, '6']);
    expect((await pglite.query('select n from counters')).rows).toEqual([{ n: 6 }]);
  });

  it('sets the session to plan reads for their values when it opens', async () => {
    await pglite.exec('reset plan_cache_mode');
    await PreparedStatements.open(pglite);
    expect(await sessionMode()).toBe('force_custom_plan');
  });

  it('keeps at most 500 statements, closing the least recently used', async () => {
    for (let i = 0; i < 520; i++) await prepared.query(`select $1::int + ${i} as n`, [1]);
    expect(await preparedCount()).toBeLessThanOrEqual(500);
    expect((await prepared.query('select $1::int + 0 as n', [1])).rows).toEqual([{ n: 1 }]);
  });

  it('keeps at most 64 statements with no parameters (values in their text, one per word searched), none of the others pushed out', async () => {
    const withParams = ['select name from things where id = $1 -- kept a', 'select name from things where id = $1 -- kept b'];
    for (let i = 0; i < 100; i++) {
      expect((await prepared.query(`select ${i} as n, count(*)::int as c from things where name like E'%w${i}%'`)).rows).toEqual([
        { n: i, c: 0 },
      ]);
      await prepared.query(withParams[i % 2]!, [1]);
    }
    const kept = (await pglite.query<{ statement: string }>('select statement from pg_prepared_statements')).rows.map((k) => k.statement);
    // the newest 64, and at most one more given up and closed with the next preparation
    const words = kept.filter((text) => text.includes("E'%w"));
    expect({ atLeast: words.length >= 64, atMost: words.length <= 65, newest: words.some((t) => t.includes("'%w99%'")) }).toEqual({
      atLeast: true,
      atMost: true,
      newest: true,
    });
    expect(words.some((text) => text.includes("'%w0%'"))).toBe(false);
    // each statement with parameters is still the one prepared at its first run
    for (const text of withParams) expect(await plansOf(text)).toEqual([{ generic_plans: 0, custom_plans: 50 }]);
  });
});
