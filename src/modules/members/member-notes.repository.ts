import { desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { adminNotes } from '../../db/schema';

export interface AdminNote {
  id: number;
  note: string;
  authorName: string | null;
  createdAt: Date;
}

const NOTES_SHOWN = 100;

/** Newest first: the detail page shows the first one; the rest is the history. */
export async function listNotes(executor: Executor, memberId: number): Promise<AdminNote[]> {
  return executor
    .select({ id: adminNotes.id, note: adminNotes.note, authorName: adminNotes.authorName, createdAt: adminNotes.createdAt })
    .from(adminNotes)
    .where(eq(adminNotes.memberId, memberId))
    .orderBy(desc(adminNotes.createdAt), desc(adminNotes.id))
    .limit(NOTES_SHOWN);
}

export async function insertNote(
  executor: Executor,
  input: { memberId: number; note: string; authorStaffId: number | null; authorName: string },
  now: Date,
): Promise<AdminNote> {
  const [row] = await executor
    .insert(adminNotes)
    .values({ ...input, createdAt: now, updatedAt: now })
    .returning({ id: adminNotes.id, note: adminNotes.note, authorName: adminNotes.authorName, createdAt: adminNotes.createdAt });
  return row!;
}
