import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { members } from '../../db/schema';

/** A `members` row as stored. */
export type MemberRow = typeof members.$inferSelect;

/** The member with this Discord ID, as stored; `forUpdate` locks the row until the transaction ends. */
export async function findMemberRowByDiscordId(
  executor: Executor,
  discordId: string,
  options: { forUpdate?: boolean } = {},
): Promise<MemberRow | undefined> {
  const query = executor.select().from(members).where(eq(members.discordId, discordId));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row;
}
