import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { idArrayText } from '../../db/id-array';
import { preparedPerExecutor } from '../../db/prepared-per-executor';
import { appeals } from '../../db/schema';

/**
 * Built once per executor (prepared-per-executor.ts), the ids as one bigint[] placeholder
 * (id-array.ts): each page of the member list asks it for its members.
 */
const preparedOpenAppeals = preparedPerExecutor((executor) =>
  executor
    .select({ memberId: appeals.memberId, id: appeals.id })
    .from(appeals)
    .where(and(eq(appeals.status, 'open'), sql`${appeals.memberId} = any(${sql.placeholder('memberIds')}::bigint[])`))
    .prepare('gk_open_appeals_of'),
);

/** Which of these members have an open appeal, and its id (appeals_one_open_per_member_key). */
export async function openAppealIdsOf(ex: Executor, memberIds: number[]): Promise<Map<number, number>> {
  if (memberIds.length === 0) return new Map();
  const rows = await preparedOpenAppeals(ex).execute({ memberIds: idArrayText(memberIds) });
  return new Map(rows.map((r) => [Number(r.memberId), Number(r.id)]));
}
