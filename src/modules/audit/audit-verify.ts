import { asc, eq, gt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { auditChainCheckpoint, auditLog } from '../../db/schema';
import { GENESIS_HASH, hashAuditContent, hashAuditEntry } from './audit-hash';
import { hashInputOf } from './audit-row';
import { sealAuditLog } from './audit-sealer';

export interface ChainVerification {
  verified: boolean;
  /** sealed rows the verdict covers (the chain from its start to the last row verified) */
  checked: number;
  /** id of the first row whose hash does not match its content or predecessor */
  brokenAt: number | null;
}

interface ChainPoint {
  sealSeq: number;
  rowId: number;
  hash: string;
}

type Checkpoint = typeof auditChainCheckpoint.$inferSelect;

const START: ChainPoint = { sealSeq: 0, rowId: 0, hash: GENESIS_HASH };

/**
 * Walks the sealed rows after `from` in seal_seq order, in pages, recomputing every hash:
 * each row must be the next seal_seq (a gap is a deleted row), carry the previous row's
 * hash (a moved row breaks this), match its own content (content_hash, where the row has
 * one, and the chain hash). `anchor`, a point verified before, must still be where it was
 * with the same hash: rewriting the chain up to it, or cutting it short, is caught too.
 */
async function walkChain(
  executor: Executor,
  from: ChainPoint,
  anchor: ChainPoint | null,
  pageSize: number,
): Promise<{ last: ChainPoint; brokenAt: number | null }> {
  let last = from;
  for (;;) {
    const rows = await executor
      .select()
      .from(auditLog)
      .where(gt(auditLog.sealSeq, last.sealSeq))
      .orderBy(asc(auditLog.sealSeq))
      .limit(pageSize);
    for (const row of rows) {
      const content = hashInputOf(row);
      const expected = hashAuditEntry(last.hash, content);
      const intact =
        row.sealSeq === last.sealSeq + 1 &&
        row.prevHash === last.hash &&
        (row.contentHash === null || row.contentHash === hashAuditContent(content)) &&
        row.hash === expected &&
        (anchor === null || row.sealSeq !== anchor.sealSeq || (row.id === anchor.rowId && row.hash === anchor.hash));
      if (!intact) return { last, brokenAt: row.id };
      // intact: this row is seal_seq last + 1 and its hash is the one just computed
      last = { sealSeq: last.sealSeq + 1, rowId: row.id, hash: expected };
    }
    if (rows.length < pageSize) break;
  }
  if (anchor && last.sealSeq < anchor.sealSeq) return { last, brokenAt: anchor.rowId };
  return { last, brokenAt: null };
}

async function readCheckpoint(executor: Executor): Promise<Checkpoint | undefined> {
  const [checkpoint] = await executor.select().from(auditChainCheckpoint).limit(1);
  return checkpoint;
}

/** Stores the verdict: the checkpoint only moves forward, and a break, once found, stays. */
async function recordVerdict(executor: Executor, last: ChainPoint, brokenAt: number | null): Promise<void> {
  const values = { sealSeq: last.sealSeq, rowId: last.rowId, hash: last.hash, brokenAt, verifiedAt: new Date() };
  await executor
    .insert(auditChainCheckpoint)
    .values(values)
    .onConflictDoUpdate({
      target: auditChainCheckpoint.one,
      set:
        brokenAt === null
          ? { sealSeq: last.sealSeq, rowId: last.rowId, hash: last.hash, verifiedAt: values.verifiedAt }
          : { brokenAt: sql`coalesce(${auditChainCheckpoint.brokenAt}, ${brokenAt})` },
      where:
        brokenAt === null ? sql`${auditChainCheckpoint.brokenAt} is null and ${auditChainCheckpoint.sealSeq} < ${last.sealSeq}` : undefined,
    });
}

function verdict(last: ChainPoint, brokenAt: number | null): ChainVerification {
  return { verified: brokenAt === null, checked: last.sealSeq, brokenAt };
}

/**
 * Seals what is pending, then walks the whole chain from its first row (the hourly job,
 * and tests): every sealed row is checked, against the stored checkpoint too, and the
 * verdict is stored for the audit page.
 */
export async function verifyAuditChain(executor: Executor, pageSize = 2000): Promise<ChainVerification> {
  await sealAuditLog(executor);
  const checkpoint = await readCheckpoint(executor);
  const anchor =
    checkpoint && checkpoint.sealSeq > 0 ? { sealSeq: checkpoint.sealSeq, rowId: checkpoint.rowId, hash: checkpoint.hash } : null;
  const { last, brokenAt } = await walkChain(executor, START, anchor, pageSize);
  await recordVerdict(executor, last, brokenAt);
  return verdict(last, brokenAt ?? checkpoint?.brokenAt ?? null);
}

/**
 * What the audit page shows: seals what is pending, then verifies only the rows sealed
 * after the stored checkpoint (the hourly full walk covers the rows before it), and moves
 * the checkpoint forward. A break found earlier by either walk is reported until then.
 */
export async function verifyAuditChainSinceCheckpoint(executor: Executor, pageSize = 2000): Promise<ChainVerification> {
  await sealAuditLog(executor);
  const checkpoint = await readCheckpoint(executor);
  if (checkpoint?.brokenAt != null) return { verified: false, checked: checkpoint.sealSeq, brokenAt: checkpoint.brokenAt };
  let from = START;
  if (checkpoint && checkpoint.sealSeq > 0) {
    from = { sealSeq: checkpoint.sealSeq, rowId: checkpoint.rowId, hash: checkpoint.hash };
    // the checkpoint's own row must still be there, unchanged: one row, not the whole chain
    const [row] = await executor
      .select({ id: auditLog.id, hash: auditLog.hash })
      .from(auditLog)
      .where(eq(auditLog.sealSeq, checkpoint.sealSeq));
    if (!row || row.id !== checkpoint.rowId || row.hash !== checkpoint.hash) {
      await recordVerdict(executor, from, checkpoint.rowId);
      return verdict(from, checkpoint.rowId);
    }
  }
  const { last, brokenAt } = await walkChain(executor, from, null, pageSize);
  await recordVerdict(executor, last, brokenAt);
  return verdict(last, brokenAt);
}
