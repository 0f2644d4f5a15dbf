import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { members } from '../../db/schema';

/** A `members` row as stored. */
export type MemberRow = typeof members.$inferSelect;

export async function findMemberByDiscordId(executor: Executor, discordId: string): Promise<MemberRow | undefined> {
  const [row] = await executor.select().from(members).where(eq(members.discordId, discordId));
  return row;
}
