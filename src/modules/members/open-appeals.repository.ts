import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { appeals } from '../../db/schema';

/** Which of these members have an open appeal, and its id (appeals_one_open_per_member_key). */
export async function openAppealIdsOf(ex: Executor, memberIds: number[]): Promise<Map<number, number>> {
  if (memberIds.length === 0) return new Map();
  const rows = await ex.select({ memberId: appeals.memberId, id: appeals.id }).from(appeals).where(and(eq(appeals.status, 'open'), inArray(appeals.memberId, memberIds)));
  return new Map(rows.map((r) => [Number(r.memberId), Number(r.id)]));
}
