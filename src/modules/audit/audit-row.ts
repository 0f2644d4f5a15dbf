import { auditLog } from '../../db/schema';
import type { AuditHashInput } from './audit-hash';

export type AuditRow = typeof auditLog.$inferSelect;

/** The part of a stored row that its hashes cover. */
export function hashInputOf(row: AuditRow): AuditHashInput {
  return {
    at: row.at,
    actorType: row.actorType,
    actorId: row.actorId,
    actorName: row.actorName,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    details: row.details,
  };
}
