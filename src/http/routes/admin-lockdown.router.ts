import { z } from 'zod';
import type { AdmissionService } from '../../modules/admission';
import { staffActor } from '../../modules/staff';
import { currentStaff } from '../middleware/staff-session';
import { validate } from '../middleware/validate';
import { validated, type StaffRoute } from './staff-route-table';
import { LOCKDOWN_REASON_MAX } from '../../discord/commands/definitions';

export const lockdownBody = z.strictObject(
  {
    on: z.boolean({ error: 'on must be true or false' }),
    reason: z
      .string({ error: 'reason must be text' })
      .trim()
      .max(LOCKDOWN_REASON_MAX, `The reason can be at most ${LOCKDOWN_REASON_MAX} characters`)
      .nullish()
      .transform((r) => r || null),
    /** when switching off: release the members held for review (otherwise they stay held) */
    release: z.boolean({ error: 'release must be true or false' }).optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown field: ${issue.keys.join(', ')}` : 'Expected a JSON object') },
);

export const releaseBody = z.strictObject(
  {
    discordIds: z
      .array(z.string().regex(/^\d{15,21}$/, 'Each Discord ID must be 15 to 21 digits'), {
        error: 'discordIds must be a list of Discord IDs',
      })
      .min(1, 'discordIds cannot be empty')
      .max(1000, 'At most 1000 members at once')
      .optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown field: ${issue.keys.join(', ')}` : 'Expected a JSON object') },
);

/** The lockdown switch, the held members and the raid alarms, for every staff member. */
export function adminLockdownRoutes(deps: { admission: AdmissionService }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/lockdown',
      access: 'staff',
      handlers: [
        async (_req, res) => {
          res.json(await deps.admission.status());
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/lockdown',
      access: 'staff',
      handlers: [
        validate(lockdownBody),
        async (req, res) => {
          const body = validated(req, lockdownBody);
          const result = await deps.admission.setLockdown(staffActor(currentStaff(res)), body);
          res.json({ success: true, ...result });
        },
      ],
    },
    {
      method: 'post',
      path: '/admin/lockdown/release',
      access: 'staff',
      handlers: [
        validate(releaseBody),
        async (req, res) => {
          const released = await deps.admission.releaseHeld(staffActor(currentStaff(res)), validated(req, releaseBody).discordIds);
          res.json({ success: true, released: released.length });
        },
      ],
    },
  ];
}
