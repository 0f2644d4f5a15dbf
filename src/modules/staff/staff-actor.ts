import type { AuditActor } from '../audit';

/** How a staff member appears in the audit log. */
export function staffActor(staff: { id: number; username: string }): AuditActor {
  return { type: 'staff', id: String(staff.id), name: staff.username };
}
