import { z } from 'zod';
import type { AppealsService } from '../../modules/appeals';
import { NotFound } from '../../errors';
import { APPEAL_LIST_STATUSES } from '../../shared/appeals';
import { discordIdParams } from './admin-members.schema';
import { currentStaff } from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import { validated, type StaffRoute } from './staff-route-table';

const idParams = z.object({
  id: z.coerce
    .number('Invalid appeal id')
    .int('Invalid appeal id')
    .positive('Invalid appeal id')
    .max(Number.MAX_SAFE_INTEGER, 'Invalid appeal id'),
});
// the reason's content rules (plain text, length) are the service's
const rejectBody = z.strictObject(
  { reason: z.unknown().optional() },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown field: ${issue.keys.join(', ')}` : 'Expected a JSON object') },
);

const listQuery = z.object({ status: z.enum(APPEAL_LIST_STATUSES, { error: 'Status must be open or decided' }).default('open') });

/** The Appeals queue and its decisions, for every staff member (docs/behaviour.md#appeals). */
export function adminAppealsRoutes(deps: { appeals: AppealsService }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/appeals',
      access: 'staff',
      handlers: [
        validate(listQuery, 'query'),
        async (req, res) => {
          res.json(await deps.appeals.queue(validated(req, listQuery, 'query').status));
        },
      ],
    },
    {
      method: 'get',
      path: '/admin/appeals/:id/preview',
      access: 'staff',
      handlers: [
        validate(idParams, 'params'),
        async (req, res) => {
          // what approving would do now, for the confirmation (404 unknown, 409 decided)
          res.json(await deps.appeals.preview(validated(req, idParams, 'params').id));
        },
      ],
    },
    {
      method: 'get',
      path: '/admin/users/:discordId/appeals',
      access: 'staff',
      handlers: [
        validate(discordIdParams, 'params'),
        async (req, res) => {
          const appeals = await deps.appeals.ofMember(validated(req, discordIdParams, 'params').discordId);
          if (!appeals) throw NotFound('User');
          res.json({ appeals });
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
          const { next, outcome } = await deps.appeals.approve(currentStaff(res), id);
          // what happens next, said the same way as in the logs channel, and what the approval did
          res.json({ success: true, next, outcome });
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
