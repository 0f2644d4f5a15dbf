import { z } from 'zod';
import type { Database } from '../../db/client';
import { listAudit, verifyAuditChainSinceCheckpoint } from '../../modules/audit/audit.repository';
import { validate } from '../middleware/validate';
import { validated, type StaffRoute } from './staff-route';

const positiveInt = (message: string) => z.string().regex(/^[1-9]\d{0,15}$/, message).transform(Number);

export const auditQuery = z.object({
  actor: z.string().trim().max(100).optional(),
  action: z.string().trim().max(100).optional(),
  target: z.string().trim().max(100).optional(),
  before: positiveInt('Invalid cursor').optional(),
  limit: positiveInt('Limit must be a number from 1 to 200')
    .refine((n) => n <= 200, 'Limit must be a number from 1 to 200')
    .optional(),
});

/** The audit log for super admins (beyond the spec): newest first, filtered, with the hash chain's verdict. */
export function adminAuditRoutes(deps: { database: Database }): StaffRoute[] {
  return [
    {
      method: 'get',
      path: '/admin/audit',
      access: 'super_admin',
      handlers: [
        validate(auditQuery, 'query'),
        async (req, res) => {
          const query = validated(req, auditQuery, 'query');
          const { db } = deps.database;
          // verifying seals what is pending first, so the page lists sealed rows (a row
          // committed in between is listed with sealSeq null: pending seal)
          const chain = await verifyAuditChainSinceCheckpoint(db);
          const page = await listAudit(db, { actor: query.actor || undefined, action: query.action || undefined, target: query.target || undefined, before: query.before, limit: query.limit });
          res.json({ entries: page.entries, nextCursor: page.nextCursor, chain });
        },
      ],
    },
  ];
}
