import { asc, isNull, sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { auditLog } from '../../db/schema';
import { GENESIS_HASH, hashAuditEntry } from './audit-hash';
import { hashInputOf } from './audit-row';
import { asLastStatement } from '../../db/last-statement';

/** Held (for one short transaction) by whoever is sealing; appends never take it. */
const SEAL_LOCK = 72611003;
/** Rows sealed per statement, and statements per call, so one call stays short under any backlog. */
const BATCH = 500;
const MAX_BATCHES = 20;

export interface SealResult {
  sealed: number;
  /** another sealer held the lock: it seals what is pending, or the next call does */
  busy: boolean;
  /** rows may be left: the call stopped after MAX_BATCHES */
  more: boolean;
}

/** One batch's seals, by row: its place in the chain, the hash before it and its own. */
export interface Seal {
  id: number;
  seq: number;
  prev: string;
  hash: string;
}

/**
 * The statement that writes a batch's seals. The rows are found by primary key from the ids
 * themselves (`id = any(…)`). Joined only to the recordset, whose size the planner cannot see (it
 * guesses 100 rows), the log was read whole at every seal for as long as reading it looked cheaper
 * than 100 key lookups: merge-joined in key order under the generic plan PGlite keeps for a write,
 * scanned on both engines once analyzed. At 5,000 rows a batch of 20 took 13.6 ms that way against
 * 1.1 ms by key (PGlite); at 100,000 the planner probed by key by itself (1.4 ms). A seal holds the
 * embedded database's one connection while it runs, and a community's log spends weeks in that range.
 */
export function sealUpdate(seals: readonly Seal[]): SQL {
  return sql`
    with v as (select * from jsonb_to_recordset(${JSON.stringify(seals)}::jsonb) as r(id bigint, seq bigint, prev text, hash text))
    update audit_log as a set seal_seq = v.seq, prev_hash = v.prev, hash = v.hash
    from v
    where a.id = v.id and a.id = any(array(select id from v))`;
}

/**
 * Chains the committed, unsealed audit rows onto the sealed head, in the order this sealer
 * sees them (by id among the rows committed so far; a row with a smaller id that commits
 * later is sealed later): each gets the next seal_seq, the head's hash as prev_hash and
 * its chain hash, in one short transaction under the sealer lock. Nothing is lost if the
 * process dies at any point: the transaction rolls back and the rows wait, unsealed, for
 * the next call. Verification walks seal_seq, never id.
 */
export async function sealAuditLog(executor: Executor): Promise<SealResult> {
  return executor.transaction(async (tx) => {
    const [lock] = await selectRows<{ ok: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${SEAL_LOCK}) as ok`);
    if (!lock?.ok) return { sealed: 0, busy: true, more: false };
    // under the lock each statement's snapshot includes every earlier sealer's commit
    const [head] = await selectRows<{ seal_seq: number | string; hash: string }>(
      tx,
      sql`select seal_seq, hash from audit_log where seal_seq is not null order by seal_seq desc limit 1`,
    );
    let seq = head ? Number(head.seal_seq) : 0;
    let prevHash = head?.hash ?? GENESIS_HASH;
    let sealed = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const rows = await tx
        .select()
        .from(auditLog)
        .where(isNull(auditLog.sealSeq))
        .orderBy(asc(auditLog.id))
        .limit(BATCH)
        .for('update', { skipLocked: true });
      if (rows.length === 0) return { sealed, busy: false, more: false };
      const seals = rows.map((row): Seal => {
        seq += 1;
        const hash = hashAuditEntry(prevHash, hashInputOf(row));
        const seal = { id: row.id, seq, prev: prevHash, hash };
        prevHash = hash;
        return seal;
      });
      // a batch that is not full is the last: its update takes the COMMIT with it
      const last = rows.length < BATCH;
      const update = () => tx.execute(sealUpdate(seals));
      await (last ? asLastStatement(tx, update) : update());
      sealed += rows.length;
      if (last) return { sealed, busy: false, more: false };
    }
    return { sealed, busy: false, more: true };
  });
}
