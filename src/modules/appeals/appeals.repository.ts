import { and, asc, count, desc, eq, isNotNull, lt, ne, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { appeals, members } from '../../db/schema';
import type { AppealableStanding, AppealOutcome, AppealStatus } from '../../shared/appeals';
import { toMember, type Member, openAppealIdsOf } from '../members';

export { openAppealIdsOf };

export interface Appeal {
  id: number;
  memberId: number;
  message: string;
  status: AppealStatus;
  standing: AppealableStanding;
  decidedByStaffId: number | null;
  decidedByName: string | null;
  decisionReason: string | null;
  createdAt: Date;
  decidedAt: Date | null;
  /** jsonb, written only by decideAppeal as an AppealOutcome */
  outcome: unknown;
}

/** The stored outcome, or null (open, rejected, or approved before outcomes were kept). */
export function outcomeOf(appeal: Appeal): AppealOutcome | null {
  return appeal.outcome !== null && typeof appeal.outcome === 'object' ? (appeal.outcome as AppealOutcome) : null;
}

/**
 * Files an appeal. Null when the member already has an open one (the partial unique
 * index appeals_one_open_per_member_key decides, so two requests at once cannot both win).
 */
export async function insertAppeal(
  ex: Executor,
  input: { memberId: number; message: string; standing: AppealableStanding },
  now: Date,
): Promise<Appeal | null> {
  const [row] = await ex
    .insert(appeals)
    .values({ memberId: input.memberId, message: input.message, standing: input.standing, createdAt: now })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

/** The member's newest appeal, whatever its state. */
export async function latestAppealOf(ex: Executor, memberId: number): Promise<Appeal | null> {
  const [row] = await ex
    .select()
    .from(appeals)
    .where(eq(appeals.memberId, memberId))
    .orderBy(desc(appeals.createdAt), desc(appeals.id))
    .limit(1);
  return row ?? null;
}

/** One appeal with its member, locked for a decision. */
export async function findAppealForDecision(ex: Executor, id: number): Promise<{ appeal: Appeal; member: Member } | null> {
  const [row] = await ex
    .select({ appeal: appeals, member: members })
    .from(appeals)
    .innerJoin(members, eq(members.id, appeals.memberId))
    .where(eq(appeals.id, id))
    .for('update');
  return row ? { appeal: row.appeal, member: toMember(row.member) } : null;
}

/** Records a decision on an open appeal; false when it was decided already. */
export async function decideAppeal(
  ex: Executor,
  id: number,
  decision: {
    status: Exclude<AppealStatus, 'open'>;
    staffId: number | null;
    staffName: string;
    reason: string | null;
    outcome?: AppealOutcome;
  },
  now: Date,
): Promise<boolean> {
  const rows = await ex
    .update(appeals)
    .set({
      status: decision.status,
      decidedByStaffId: decision.staffId,
      decidedByName: decision.staffName,
      decisionReason: decision.reason,
      outcome: decision.outcome ?? null,
      decidedAt: now,
    })
    .where(and(eq(appeals.id, id), eq(appeals.status, 'open')))
    .returning({ id: appeals.id });
  return rows.length === 1;
}

/** The open appeals with their members, oldest first (appeals_open_queue_idx). */
export async function listOpenAppeals(ex: Executor, limit: number): Promise<{ appeal: Appeal; member: Member }[]> {
  const rows = await ex
    .select({ appeal: appeals, member: members })
    .from(appeals)
    .innerJoin(members, eq(members.id, appeals.memberId))
    .where(eq(appeals.status, 'open'))
    .orderBy(asc(appeals.createdAt), asc(appeals.id))
    .limit(limit);
  return rows.map((r) => ({ appeal: r.appeal, member: toMember(r.member) }));
}

/** The decided appeals with their members, newest decided first (appeals_decided_at_status_idx). */
export async function listDecidedAppeals(ex: Executor, limit: number): Promise<{ appeal: Appeal; member: Member }[]> {
  const rows = await ex
    .select({ appeal: appeals, member: members })
    .from(appeals)
    .innerJoin(members, eq(members.id, appeals.memberId))
    .where(isNotNull(appeals.decidedAt))
    .orderBy(desc(appeals.decidedAt), desc(appeals.id))
    .limit(limit);
  return rows.map((r) => ({ appeal: r.appeal, member: toMember(r.member) }));
}

/** Every appeal of one member, newest first (appeals_member_id_idx). */
export async function listAppealsOfMember(ex: Executor, memberId: number): Promise<Appeal[]> {
  return ex.select().from(appeals).where(eq(appeals.memberId, memberId)).orderBy(desc(appeals.createdAt), desc(appeals.id));
}

export async function countOpenAppeals(ex: Executor): Promise<number> {
  const [row] = await ex.select({ n: count() }).from(appeals).where(eq(appeals.status, 'open'));
  return Number(row?.n ?? 0);
}

/** Retention: decided appeals older than the cut-off go (open ones stay with their member). */
export async function purgeDecidedAppealsBefore(ex: Executor, cutoff: Date): Promise<number> {
  const rows = await ex
    .delete(appeals)
    .where(and(ne(appeals.status, 'open'), lt(sql`coalesce(${appeals.decidedAt}, ${appeals.createdAt})`, cutoff)))
    .returning({ id: appeals.id });
  return rows.length;
}
