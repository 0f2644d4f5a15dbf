import type { Database } from '../../db/client';
import { silentLogger } from '../../logger';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { startAuditSealer } from './audit-seal-schedule';
import { PgDialect } from 'drizzle-orm/pg-core';
import { explainGenericPlan, mostRowsInPlan } from '../../test-support/generic-plan';
import { sealAuditLog, sealUpdate } from './audit-sealer';
import { appendAudit, verifyAuditChain, verifyAuditChainSinceCheckpoint } from './audit.repository';

async function appendRows(database: Database, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await appendAudit(database.db, { actor: { type: 'staff', id: `${i}` }, action: `act.${i}`, details: { i } })).id);
  return ids;
}

/** Runs SQL on audit_log with its append-only trigger off, as someone with the database owner's rights could. */
async function behindTheTrigger(database: Database, statements: string[]): Promise<void> {
  await database.exec('alter table audit_log disable trigger audit_log_no_update');
  try {
    for (const statement of statements) await database.exec(statement);
  } finally {
    await database.exec('alter table audit_log enable trigger audit_log_no_update');
  }
}

async function unsealedCount(database: Database): Promise<number> {
  return (await database.query<{ n: number }>('select count(*)::int as n from audit_log where seal_seq is null')).rows[0]!.n;
}

describeEngines('audit log sealing', (getDatabase, engine) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  const ROWS = 5;
  const tampers: [string, (seq: number) => string[]][] = [
    ['editing', (seq) => [`update audit_log set details = '{"i": 99}' where seal_seq = ${seq}`]],
    ['deleting', (seq) => [`delete from audit_log where seal_seq = ${seq}`]],
    [
      'reordering',
      (seq) => {
        const other = seq === ROWS ? seq - 1 : seq + 1;
        return [
          `update audit_log set seal_seq = -1 where seal_seq = ${seq}`,
          `update audit_log set seal_seq = ${seq} where seal_seq = ${other}`,
          `update audit_log set seal_seq = ${other} where seal_seq = -1`,
        ];
      },
    ],
  ];

  it.each(tampers)('detects %s any sealed row, on the full walk and then on the page', async (_kind, tamper) => {
    const database = getDatabase();
    for (let seq = 1; seq <= ROWS; seq++) {
      await resetDatabase(database);
      await appendRows(database, ROWS);
      expect(await verifyAuditChain(database.db)).toEqual({ verified: true, checked: ROWS, brokenAt: null });
      await behindTheTrigger(database, tamper(seq));
      const full = await verifyAuditChain(database.db);
      expect(full.verified).toBe(false);
      expect(full.brokenAt).not.toBeNull();
      // once found, the page reports it too
      expect(await verifyAuditChainSinceCheckpoint(database.db)).toMatchObject({ verified: false, brokenAt: full.brokenAt });
    }
  });

  it('loses nothing when the process dies between append and seal, or in the middle of a seal', async () => {
    const database = getDatabase();
    const ids = await appendRows(database, 3);
    expect(await unsealedCount(database)).toBe(3);
    // a sealer that dies after its update, before commit: its transaction rolls back
    await expect(
      database.db.transaction(async (tx) => {
        expect((await sealAuditLog(tx)).sealed).toBe(3);
        throw new Error('killed');
      }),
    ).rejects.toThrow('killed');
    expect(await unsealedCount(database)).toBe(3);
    // after a restart the next seal chains every row; the chain verifies
    await appendRows(database, 2);
    expect(await sealAuditLog(database.db)).toEqual({ sealed: 5, busy: false, more: false });
    const order = (await database.query<{ id: number | string }>('select id from audit_log order by seal_seq')).rows.map((r) =>
      Number(r.id),
    );
    expect(order.slice(0, 3)).toEqual(ids);
    expect(await verifyAuditChain(database.db)).toEqual({ verified: true, checked: 5, brokenAt: null });
  });

  it("writes a batch's seals by key under one generic plan, whatever the length of the log", async () => {
    const database = getDatabase();
    await database.query(`insert into audit_log (actor_type, action) select 'system', 'old.' || g from generate_series(1, 5000) g`);
    expect((await sealAuditLog(database.db)).sealed).toBe(5000);
    await database.query('analyze audit_log');
    await appendRows(database, 10);
    const ids = (await database.query<{ id: number }>('select id from audit_log where seal_seq is null order by id')).rows.map((r) =>
      Number(r.id),
    );
    const update = sealUpdate(ids.map((id, i) => ({ id, seq: 1_000_000 + i, prev: 'p', hash: 'h' })));
    const dialect = new PgDialect();
    // the plan PGlite keeps for a write (explainGenericPlan), run: it reads the batch's 10 rows by key, not the
    // 5,010 of the log (the join alone read them all, in key order)
    const plan = await explainGenericPlan(database, { getSQL: () => update, toSQL: () => dialect.sqlToQuery(update) });
    expect(plan).toMatch(/Index Scan using audit_log_pkey/);
    expect(plan).not.toMatch(/Rows Removed/);
    expect(mostRowsInPlan(plan)).toBeLessThanOrEqual(10);
    expect(await unsealedCount(database)).toBe(0);
  });

  it('allows the sealer its one update of an unsealed row and refuses every other change', async () => {
    const database = getDatabase();
    const [id] = await appendRows(database, 1);
    await expect(database.query(`update audit_log set action = 'x' where id = $1`, [id])).rejects.toThrow(/append-only/);
    await expect(
      database.query(`update audit_log set seal_seq = 1, prev_hash = 'a', hash = 'b', action = 'x' where id = $1`, [id]),
    ).rejects.toThrow(/append-only/);
    await expect(database.query(`update audit_log set seal_seq = 1 where id = $1`, [id])).rejects.toThrow();
    await expect(database.query(`delete from audit_log where id = $1`, [id])).rejects.toThrow(/append-only/);
    expect((await sealAuditLog(database.db)).sealed).toBe(1);
    await expect(database.query(`update audit_log set seal_seq = 2, prev_hash = 'a', hash = 'b' where id = $1`, [id])).rejects.toThrow(
      /append-only/,
    );
    await expect(database.query(`update audit_log set details = '{}' where id = $1`, [id])).rejects.toThrow(/append-only/);
    await expect(database.query(`delete from audit_log where id = $1`, [id])).rejects.toThrow(/append-only/);
    expect(await verifyAuditChain(database.db)).toEqual({ verified: true, checked: 1, brokenAt: null });
  });

  it('verifies only the rows sealed after the checkpoint on the page; the full walk covers the rest', async () => {
    const database = getDatabase();
    await appendRows(database, 4);
    expect(await verifyAuditChainSinceCheckpoint(database.db)).toEqual({ verified: true, checked: 4, brokenAt: null });
    await appendRows(database, 3);
    // a row before the checkpoint is not read again by the page…
    await behindTheTrigger(database, [`update audit_log set action = 'forged' where seal_seq = 2`]);
    expect(await verifyAuditChainSinceCheckpoint(database.db)).toEqual({ verified: true, checked: 7, brokenAt: null });
    // …the full walk finds it, and from then on the page says so
    const secondId = (await database.query<{ id: number | string }>('select id from audit_log where seal_seq = 2')).rows[0]!.id;
    expect(await verifyAuditChain(database.db)).toMatchObject({ verified: false, brokenAt: Number(secondId) });
    expect(await verifyAuditChainSinceCheckpoint(database.db)).toMatchObject({ verified: false, brokenAt: Number(secondId) });

    // a row after the checkpoint is checked by the page
    await resetDatabase(database);
    await appendRows(database, 2);
    await verifyAuditChainSinceCheckpoint(database.db);
    const [target] = await appendRows(database, 2);
    await sealAuditLog(database.db);
    await behindTheTrigger(database, [`update audit_log set action = 'forged' where id = ${target}`]);
    expect(await verifyAuditChainSinceCheckpoint(database.db)).toEqual({ verified: false, checked: 2, brokenAt: target });
  });

  it('catches a chain cut short behind its checkpoint', async () => {
    const database = getDatabase();
    await appendRows(database, 3);
    await verifyAuditChain(database.db);
    const lastId = Number((await database.query<{ id: number | string }>('select id from audit_log where seal_seq = 3')).rows[0]!.id);
    await behindTheTrigger(database, ['delete from audit_log where seal_seq = 3']);
    expect(await verifyAuditChain(database.db)).toEqual({ verified: false, checked: 2, brokenAt: lastId });
  });

  it('seals shortly after an append when a sealer runs, and before it stops', async () => {
    const database = getDatabase();
    const sealer = startAuditSealer({ database, logger: silentLogger, debounceMs: 5 });
    try {
      await appendRows(database, 2);
      const deadline = Date.now() + 5_000;
      while ((await unsealedCount(database)) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await unsealedCount(database)).toBe(0);
      await database.db.transaction(async (tx) => {
        await appendAudit(tx, { actor: { type: 'system' }, action: 'late' });
      });
    } finally {
      await sealer.stop();
    }
    expect(await unsealedCount(database)).toBe(0);
    expect(await verifyAuditChain(database.db)).toEqual({ verified: true, checked: 3, brokenAt: null });
  });

  if (engine === 'postgres') {
    it('seals in the order rows commit, not their id order', async () => {
      const database = getDatabase();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let earlyId = 0;
      let appended!: () => void;
      const inserted = new Promise<void>((resolve) => (appended = resolve));
      const slow = database.db.transaction(async (tx) => {
        earlyId = (await appendAudit(tx, { actor: { type: 'system' }, action: 'early id, late commit' })).id;
        appended();
        await held;
      });
      await inserted;
      const [lateId] = await appendRows(database, 1);
      expect(lateId).toBeGreaterThan(earlyId);
      expect((await sealAuditLog(database.db)).sealed).toBe(1);
      release();
      await slow;
      expect((await sealAuditLog(database.db)).sealed).toBe(1);
      const order = (await database.query<{ id: number | string }>('select id from audit_log order by seal_seq')).rows.map((r) =>
        Number(r.id),
      );
      expect(order).toEqual([lateId, earlyId]);
      expect(await verifyAuditChain(database.db)).toEqual({ verified: true, checked: 2, brokenAt: null });
    });

    it('lets one sealer at a time chain rows; the others step aside', async () => {
      const database = getDatabase();
      await appendRows(database, 10);
      const results = await Promise.all(Array.from({ length: 4 }, () => sealAuditLog(database.db)));
      expect(results.reduce((n, r) => n + r.sealed, 0)).toBe(10);
      expect(await verifyAuditChain(database.db)).toEqual({ verified: true, checked: 10, brokenAt: null });
    });
  }
});
