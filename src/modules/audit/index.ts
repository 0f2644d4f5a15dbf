/** The audit module, as the rest of the server uses it. */
export { actedFromCard, appendAudit, auditAppendCall, listAudit, verifyAuditChain, type AuditActor } from './audit.repository';
export { createAuditLogService } from './audit-log.service';
export type { AuditLogService } from './audit-log.service';
export { startAuditSealer } from './audit-seal-schedule';
export { AUDIT_PAGE_MAX } from './audit.repository';
