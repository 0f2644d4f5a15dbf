import { z } from 'zod';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { AppError, NotFound } from '../../errors';
import { appendAudit } from '../../modules/audit/audit.repository';
import type { OutboxRepository } from '../../modules/outbox/outbox.repository';
import { staffActor } from '../../modules/staff/staff-actor';
import { currentStaff } from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import { validated, type StaffRoute } from './staff-route';

const listQuery = z.object({
  status: z.enum(['pending', 'running', 'done', 'failed']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const idParams = z.object({ id: z.coerce.number().int().positive('Invalid action id') });

/**
 * Discord actions as staff see them: what is waiting, and what failed for good (unknown
 * member, missing permissions …) with its error, so nothing is dropped silently. A failed
 * action can be sent back to the queue, except a guild join whose one-time Discord
 * sign-in is gone: the visitor must verify again.
 */
export function adminOutboxRoutes(deps: { database: Database; clock: Clock; outbox: Pick<OutboxRepository, 'list' | 'depth' | 'retry' | 'findById'> }): StaffRoute[] {
  const { db } = deps.database;
  return [
    {
      method: 'get',
      path: '/admin/outbox',
      access: 'staff',
      handlers: [
        validate(listQuery, 'query'),
        async (req, res) => {
          const query = validated(req, listQuery, 'query');
          const [entries, depth] = await Promise.all([deps.outbox.list(db, { status: query.status, limit: query.limit }), deps.outbox.depth(db)]);
          res.json({
            depth,
            entries: entries.map(({ payload, hasSecret: _secret, ...entry }) => ({ ...entry, role: typeof payload.role === 'string' ? payload.role : null })),
          });
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/outbox/:id/retry',
      access: 'staff',
      handlers: [
        validate(idParams, 'params'),
        async (req, res) => {
          const { id } = validated(req, idParams, 'params');
          const staff = currentStaff(res);
          await db.transaction(async (tx) => {
            const entry = await deps.outbox.findById(tx, id);
            if (!entry) throw NotFound('Discord action');
            if (entry.status !== 'failed') throw new AppError(409, 'not_failed', 'Only failed Discord actions can be retried');
            if (entry.kind === 'add_guild_member') {
              throw new AppError(409, 'needs_sign_in', "Adding a member needs the visitor's own Discord sign-in: ask them to verify again on the website");
            }
            await deps.outbox.retry(tx, id);
            await appendAudit(tx, { actor: staffActor(staff), action: 'outbox.retry', targetType: 'member', targetId: entry.discordId, details: { outboxId: id, kind: entry.kind } }, deps.clock.now());
          });
          res.json({ success: true });
        },
      ],
    },
  ];
}
