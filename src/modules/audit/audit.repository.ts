import { and, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { auditLog } from '../../db/schema';
import { GENESIS_HASH, hashAuditEntry } from './audit-hash';

export type AuditActorType = 'staff' | 'discord' | 'system' | 'visitor';

export interface AuditActor {
  type: AuditActorType;
  /** staff id, Discord user id, or a system job name */
  id?: string | null;
  name?: string | null;
}

export interface AuditEntryInput {
  actor: AuditActor;
  action: string;
  targetType?: string | null;
  /** for members this is the Discord ID, the only personal datum the audit log keeps */
  targetId?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  id: number;
  at: Date;
  actorType: AuditActorType;
  actorId: string | null;
  actorName: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

/** Serialises writers so the chain has one head, on PGlite and across PostgreSQL connections. */
const AUDIT_CHAIN_LOCK = 72_611_002;

type Row = typeof auditLog.$inferSelect;

function toEntry(row: Row): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    actorType: row.actorType,
    actorId: row.actorId,
    actorName: row.actorName,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    details: (row.details ?? {}) as Record<string, unknown>,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/**
 * Appends one row to the audit log. Call it inside the transaction that makes the
 * change it records, so the change and its record commit together.
 */
export async function appendAudit(executor: Executor, input: AuditEntryInput, now = new Date()): Promise<AuditEntry> {
  const write = async (tx: Executor) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK})`);
    const [head] = await tx.select({ hash: auditLog.hash, at: auditLog.at }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    const prevHash = head?.hash ?? GENESIS_HASH;
    // keep time monotonic along the chain even if clocks of two processes disagree
    const at = head && head.at > now ? head.at : now;
    const content = {
      at,
      actorType: input.actor.type,
      actorId: input.actor.id ?? null,
      actorName: input.actor.name ?? null,
      action: input.action,
      targetType: input.targetType ?? null,
      targetId: input.targetId ?? null,
      details: input.details ?? {},
    };
    const hash = hashAuditEntry(prevHash, content);
    const [row] = await tx.insert(auditLog).values({ ...content, prevHash, hash }).returning();
    return toEntry(row!);
  };
  // a transaction object nests as a savepoint; the database opens a new transaction
  return executor.transaction((tx) => write(tx));
}

export interface AuditQuery {
  actor?: string;
  action?: string;
  target?: string;
  /** id of the last row of the previous page */
  before?: number;
  limit?: number;
}

/** Newest first, filtered by actor (id or name), action and target. */
export async function listAudit(executor: Executor, query: AuditQuery): Promise<{ entries: AuditEntry[]; nextCursor: number | null }> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 200);
  const filters: SQL[] = [];
  if (query.actor) filters.push(sql`(${auditLog.actorId} = ${query.actor} or lower(${auditLog.actorName}) = lower(${query.actor}))`);
  if (query.action) filters.push(eq(auditLog.action, query.action));
  if (query.target) filters.push(eq(auditLog.targetId, query.target));
  if (query.before) filters.push(lt(auditLog.id, query.before));
  const rows = await executor
    .select()
    .from(auditLog)
    .where(filters.length ? and(...filters) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(limit + 1);
  const entries = rows.slice(0, limit).map(toEntry);
  return { entries, nextCursor: rows.length > limit ? (entries.at(-1)?.id ?? null) : null };
}

export interface ChainVerification {
  verified: boolean;
  checked: number;
  /** id of the first row whose hash does not match its content or predecessor */
  brokenAt: number | null;
}

/** Walks the whole chain in id order, in pages, recomputing every hash. */
export async function verifyAuditChain(executor: Executor, pageSize = 2000): Promise<ChainVerification> {
  let prevHash = GENESIS_HASH;
  let lastId = 0;
  let checked = 0;
  for (;;) {
    const rows = await executor.select().from(auditLog).where(sql`${auditLog.id} > ${lastId}`).orderBy(auditLog.id).limit(pageSize);
    for (const row of rows) {
      const expected = hashAuditEntry(prevHash, {
        at: row.at,
        actorType: row.actorType,
        actorId: row.actorId,
        actorName: row.actorName,
        action: row.action,
        targetType: row.targetType,
        targetId: row.targetId,
        details: row.details,
      });
      if (row.prevHash !== prevHash || row.hash !== expected) return { verified: false, checked, brokenAt: row.id };
      prevHash = row.hash;
      lastId = row.id;
      checked++;
    }
    if (rows.length < pageSize) return { verified: true, checked, brokenAt: null };
  }
}
