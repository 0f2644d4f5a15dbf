import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { members } from '../../db/schema';
import type { Gate } from './admission-rules';

/** Records the gate of the member's latest verification (null clears an earlier one). */
export async function setMemberGate(executor: Executor, memberId: number, gate: Gate | null): Promise<void> {
  await executor
    .update(members)
    .set({ gateAction: gate?.action ?? null, gateReason: gate?.reason ?? null })
    .where(eq(members.id, memberId));
}

/** Releases the members held for review (all of them, or the given ones); returns their Discord ids. */
export async function releaseHeldMembers(executor: Executor, now: Date, discordIds?: string[]): Promise<string[]> {
  const held = eq(members.gateAction, 'review');
  const rows = await executor
    .update(members)
    .set({ gateAction: null, gateReason: null, updatedAt: now })
    .where(discordIds ? and(held, inArray(members.discordId, discordIds)) : held)
    .returning({ discordId: members.discordId });
  return rows.map((r) => r.discordId);
}

export async function countHeldMembers(executor: Executor): Promise<number> {
  const [row] = await executor.select({ n: sql<number>`count(*)::int` }).from(members).where(eq(members.gateAction, 'review'));
  return Number(row?.n ?? 0);
}

export async function listHeldMembers(executor: Executor, limit = 100): Promise<{ discordId: string; username: string; gateReason: string | null; verifiedAt: Date }[]> {
  return executor
    .select({ discordId: members.discordId, username: members.username, gateReason: members.gateReason, verifiedAt: members.verifiedAt })
    .from(members)
    .where(eq(members.gateAction, 'review'))
    .orderBy(members.id)
    .limit(limit);
}
