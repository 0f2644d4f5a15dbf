import { z } from 'zod';
import { type AuditLogService, AUDIT_PAGE_MAX } from '../../modules/audit';
import { isAuditAction } from '../../shared/audit-actions';
import { validate } from '../middleware/validate';
import { INVALID_DISCORD_ID, SNOWFLAKE } from './admin-members.schema';
import { validated, type StaffRoute } from './staff-route-table';
import { DAY_MS } from '../../shared/durations';

const positiveInt = (message: string) =>
  z
    .string()
    .regex(/^[1-9]\d{0,15}$/, message)
    .transform(Number);

const LIMIT_MESSAGE = `Limit must be a number from 1 to ${AUDIT_PAGE_MAX}`;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INVALID_DATE = 'Dates must be days written YYYY-MM-DD';

/** A day (YYYY-MM-DD, UTC) as the time it starts; a day that does not exist (2026-02-30) is refused. */
const day = z
  .string()
  .trim()
  .regex(DAY, INVALID_DATE)
  .transform((text, ctx) => {
    const at = new Date(`${text}T00:00:00.000Z`);
    if (Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== text) {
      ctx.addIssue({ code: 'custom', message: INVALID_DATE });
      return z.NEVER;
    }
    return at;
  });

export const auditQuery = z
  .object({
    actor: z.string().trim().max(100).optional(),
    action: z
      .string()
      .trim()
      .refine((value) => value === '' || isAuditAction(value), "Unknown action: choose one of the audit log's actions")
      .optional(),
    target: z.string().trim().max(100).optional(),
    member: z.string().trim().regex(SNOWFLAKE, INVALID_DISCORD_ID).optional().or(z.literal('')),
    /** the first day shown (inclusive) */
    from: day.optional(),
    /** the last day shown (inclusive) */
    to: day.optional(),
    before: positiveInt('Invalid cursor').optional(),
    limit: positiveInt(LIMIT_MESSAGE)
      .refine((n) => n <= AUDIT_PAGE_MAX, LIMIT_MESSAGE)
      .optional(),
  })
  .refine((q) => !q.from || !q.to || q.from.getTime() <= q.to.getTime(), {
    message: 'The first day must not be after the last day',
    path: ['from'],
  });

/** The audit log for super admins (beyond the spec): newest first, filtered, each entry with the names its sentence uses, and the hash chain's verdict. */
export function adminAuditRoutes(deps: { auditLog: AuditLogService }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/audit',
      access: 'super_admin',
      handlers: [
        validate(auditQuery, 'query'),
        async (req, res) => {
          const query = validated(req, auditQuery, 'query');
          const page = await deps.auditLog.page({
            actor: query.actor || undefined,
            action: query.action || undefined,
            target: query.target || undefined,
            member: query.member || undefined,
            from: query.from,
            // the last day is inclusive: entries before the start of the day after it
            to: query.to ? new Date(query.to.getTime() + DAY_MS) : undefined,
            before: query.before,
            limit: query.limit,
          });
          res.json(page);
        },
      ],
    },
  ];
}
