import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { AppError, NotFound } from '../../errors';
import { appendAudit } from '../audit';
import { type StaffAccount, staffActor } from '../staff';
import type { OutboxRepository } from './outbox.repository';
import type { OutboxEntry } from './outbox.types';

/**
 * Discord actions as staff see them: what is waiting, and what failed for good (unknown
 * member, missing permissions …) with its error, so nothing is dropped silently. A failed
 * action can be sent back to the queue, except a guild join whose one-time Discord
 * sign-in is gone: the visitor must verify again.
 */
export function createOutboxAdminService(deps: {
  database: Database;
  clock: Clock;
  outbox: Pick<OutboxRepository, 'list' | 'depth' | 'retry' | 'findById'>;
}) {
  const { db } = deps.database;

  async function overview(query: { status?: OutboxEntry['status']; limit: number }) {
    const [entries, depth] = await Promise.all([deps.outbox.list(db, { status: query.status, limit: query.limit }), deps.outbox.depth(db)]);
    return { entries, depth };
  }

  /** Sends one failed action back to the queue, audited; 404 / 409 when that is not possible. */
  async function retry(staff: StaffAccount, id: number): Promise<void> {
    await db.transaction(async (tx) => {
      const entry = await deps.outbox.findById(tx, id);
      if (!entry) throw NotFound('Discord action');
      if (entry.status !== 'failed') throw new AppError(409, 'not_failed', 'Only failed Discord actions can be retried');
      if (entry.kind === 'add_guild_member') {
        throw new AppError(
          409,
          'needs_sign_in',
          "Adding a member needs the visitor's own Discord sign-in: ask them to verify again on the website",
        );
      }
      await deps.outbox.retry(tx, id);
      await appendAudit(
        tx,
        {
          actor: staffActor(staff),
          action: 'outbox.retry',
          targetType: 'member',
          targetId: entry.discordId,
          details: { outboxId: id, kind: entry.kind },
        },
        deps.clock.now(),
      );
    });
  }

  return { overview, retry };
}

export type OutboxAdminService = ReturnType<typeof createOutboxAdminService>;
