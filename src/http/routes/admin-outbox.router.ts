import { z } from 'zod';
import type { OutboxAdminService } from '../../modules/outbox';
import { currentStaff } from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import { validated, type StaffRoute } from './staff-route-table';

const listQuery = z.object({
  status: z.enum(['pending', 'running', 'done', 'failed']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const idParams = z.object({ id: z.coerce.number().int().positive('Invalid action id') });

/** Discord actions as staff see them, and the retry of a failed one (OutboxAdminService holds the rules). */
export function adminOutboxRoutes(deps: { outboxAdmin: OutboxAdminService }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/outbox',
      access: 'staff',
      handlers: [
        validate(listQuery, 'query'),
        async (req, res) => {
          const query = validated(req, listQuery, 'query');
          const { entries, depth } = await deps.outboxAdmin.overview({ status: query.status, limit: query.limit });
          res.json({
            depth,
            entries: entries.map(({ payload, hasSecret: _secret, ...entry }) => ({
              ...entry,
              role: typeof payload.role === 'string' ? payload.role : null,
            })),
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
          await deps.outboxAdmin.retry(currentStaff(res), id);
          res.json({ success: true });
        },
      ],
    },
  ];
}
