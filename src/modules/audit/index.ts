/** The audit module, as the rest of the server uses it. */
export { actedFromCard, appendAudit, auditAppendCall, listAudit, verifyAuditChain, type AuditActor } from './audit.repository';
