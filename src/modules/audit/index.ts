/** The audit module, as the rest of the server uses it. */
export {
  actedFromCard,
  appendAudit,
  auditAppendCall,
  listAudit,
  verifyAuditChain,
  type AuditActor,
  AUDIT_PAGE_MAX,
} from './audit.repository';
export { createAuditLogService, type AuditLogService } from './audit-log.service';
export { startAuditSealer } from './audit-seal-schedule';
