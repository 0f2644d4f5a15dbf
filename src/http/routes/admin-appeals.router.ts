import { z } from 'zod';
import type { AppealsService } from '../../modules/appeals/appeals.service';
import { currentStaff } from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import { validated, type StaffRoute } from './staff-route-table';

const idParams = z.object({ id: z.coerce.number('Invalid appeal id').int('Invalid appeal id').positive('Invalid appeal id').max(Number.MAX_SAFE_INTEGER, 'Invalid appeal id') });
// the reason's content rules (plain text, length) are the service's
const rejectBody = z.strictObject(
  { reason: z.unknown().optional() },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown field: ${issue.keys.join(', ')}` : 'Expected a JSON object') },
);

/** The Appeals queue and its decisions, for every staff member (docs/behaviour.md#appeals). */
export function adminAppealsRoutes(deps: { appeals: AppealsService }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/appeals',
      access: 'staff',
      handlers: [
        async (_req, res) => {
          res.json(await deps.appeals.queue());
        },
      ],
    },
    {
      method: 'get',
      path: '/admin/appeals/count',
      access: 'staff',
      handlers: [
        async (_req, res) => {
          res.json({ open: await deps.appeals.openCount() });
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/appeals/:id/approve',
      access: 'staff',
      handlers: [
        validate(idParams, 'params'),
        async (req, res) => {
          const { id } = validated(req, idParams, 'params');
          const { next } = await deps.appeals.approve(currentStaff(res), id);
          // what happens next, said the same way as in the logs channel
          res.json({ success: true, next });
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/appeals/:id/reject',
      access: 'staff',
      handlers: [
        validate(idParams, 'params'),
        validate(rejectBody),
        async (req, res) => {
          const { id } = validated(req, idParams, 'params');
          await deps.appeals.reject(currentStaff(res), id, validated(req, rejectBody).reason);
          res.json({ success: true });
        },
      ],
    },
  ];
}
