import { and, desc, eq, gte, inArray, lt, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { auditLog } from '../../db/schema';
import { splitHashInputAtTime, type AuditHashInput } from './audit-hash';
import type { AuditRow } from './audit-row';
import { nudgeAuditSealers } from './audit-seal-schedule';

export { verifyAuditChain, verifyAuditChainSinceCheckpoint, type ChainVerification } from './audit-verify';

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
  /** SHA-256 of the content, set when appended (null on rows older than sealing) */
  contentHash: string | null;
  /** place in the chain and the chain hashes, set by the sealer after commit: null while pending */
  sealSeq: number | null;
  prevHash: string | null;
  hash: string | null;
}

function toEntry(row: AuditRow): AuditEntry {
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
    contentHash: row.contentHash,
    sealSeq: row.sealSeq,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/** A row as `audit_append` returns it (raw SQL: snake_case, time as epoch milliseconds). */
interface AppendedRow {
  id: number;
  at_ms: number | string;
  actor_type: AuditActorType;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown> | null;
  content_hash: string;
}

/** What an entry's content hash covers besides its time: the input as stored, an absent field as null (details as {}). */
export function auditContentOf(input: AuditEntryInput): Omit<AuditHashInput, 'at'> {
  return {
    actorType: input.actor.type,
    actorId: input.actor.id ?? null,
    actorName: input.actor.name ?? null,
    action: input.action,
    targetType: input.targetType ?? null,
    targetId: input.targetId ?? null,
    details: input.details ?? {},
  };
}

/**
 * The call `audit_append(…)` (src/db/functions/audit_append.sql) for one entry: it inserts
 * the row unsealed, with its content hash, in one statement and without any lock. `perRowOf`
 * (a column that is never null, of a row written earlier in the same statement) makes the
 * call run once per such row and not at all without one: `from written cross join lateral <call>`.
 * The sealers of this process are nudged: they chain the row shortly after it commits.
 */
export function auditAppendCall(input: AuditEntryInput, now: Date, perRowOf?: SQL): SQL {
  nudgeAuditSealers();
  const content = auditContentOf(input);
  const { beforeAt, afterAt } = splitHashInputAtTime(content);
  // the same value either way; the reference only ties the call to the outer row
  const targetId = perRowOf
    ? sql`case when ${perRowOf} is null then null else ${content.targetId}::text end`
    : sql`${content.targetId}::text`;
  return sql`audit_append(${now.toISOString()}::timestamptz, ${content.actorType}, ${content.actorId}, ${content.actorName}, ${content.action}, ${content.targetType}, ${targetId}, ${JSON.stringify(content.details)}::jsonb, ${beforeAt}, ${afterAt})`;
}

/**
 * Appends one row to the audit log in ONE statement. Call it inside the transaction that
 * makes the change it records; on the database itself it commits on its own. The row
 * comes back unsealed (no chain hashes yet): the sealer chains it after commit. `alongside` are
 * writes (INSERT/UPDATE/DELETE queries) run in the same statement, as data-modifying WITH
 * queries: one round trip for the change's last writes and its audit row.
 */
export async function appendAudit(
  executor: Executor,
  input: AuditEntryInput,
  now = new Date(),
  alongside: readonly SQLWrapper[] = [],
): Promise<AuditEntry> {
  // drizzle puts an embedded query in parentheses: `as ${query}` reads `as (insert …)`
  const writes =
    alongside.length > 0
      ? sql`with ${sql.join(
          alongside.map((write, i) => sql`${sql.raw(`write_${i}`)} as ${write}`),
          sql`, `,
        )} `
      : sql``;
  const [row] = await selectRows<AppendedRow>(
    executor,
    sql`${writes}select id, (extract(epoch from at) * 1000)::float8 as at_ms, actor_type, actor_id, actor_name, action, target_type, target_id, details, content_hash
        from ${auditAppendCall(input, now)}`,
  );
  if (!row) throw new Error('audit_append returned no row');
  return {
    id: Number(row.id),
    at: new Date(Number(row.at_ms)),
    actorType: row.actor_type,
    actorId: row.actor_id,
    actorName: row.actor_name,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    details: row.details ?? {},
    contentHash: row.content_hash,
    sealSeq: null,
    prevHash: null,
    hash: null,
  };
}

/**
 * Whether one of `actions` was already recorded on this target from this log card (`details.card`):
 * a button in the logs channel acts once, however often or however fast it is pressed.
 */
export async function actedFromCard(
  executor: Executor,
  input: { actions: readonly string[]; targetId: string; card: number },
): Promise<boolean> {
  const rows = await executor
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(
      and(
        inArray(auditLog.action, [...input.actions]),
        eq(auditLog.targetId, input.targetId),
        sql`${auditLog.details}->>'card' = ${String(input.card)}`,
      ),
    )
    .limit(1);
  return rows.length > 0;
}

export interface AuditQuery {
  actor?: string;
  action?: string;
  target?: string;
  /** a member's Discord ID: entries about them (the target) or by them (a visitor or Discord actor) */
  member?: string;
  /** entries at or after this time */
  from?: Date;
  /** entries before this time */
  to?: Date;
  /** id of the last row of the previous page */
  before?: number;
  limit?: number;
}

/** The most entries one page of the audit log may ask for. */
export const AUDIT_PAGE_MAX = 200;

/** Newest first, filtered by actor (id or name), action, target, member and time. */
export async function listAudit(executor: Executor, query: AuditQuery): Promise<{ entries: AuditEntry[]; nextCursor: number | null }> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), AUDIT_PAGE_MAX);
  const filters: SQL[] = [];
  if (query.actor) filters.push(sql`(${auditLog.actorId} = ${query.actor} or lower(${auditLog.actorName}) = lower(${query.actor}))`);
  if (query.action) filters.push(eq(auditLog.action, query.action));
  if (query.target) filters.push(eq(auditLog.targetId, query.target));
  // two index scans (audit_log_target_idx, audit_log_actor_idx) joined by the planner
  if (query.member)
    filters.push(
      sql`(${auditLog.targetId} = ${query.member} or (${auditLog.actorId} = ${query.member} and ${auditLog.actorType} in ('visitor', 'discord')))`,
    );
  if (query.from) filters.push(gte(auditLog.at, query.from));
  if (query.to) filters.push(lt(auditLog.at, query.to));
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
