/** The outbox module, as the rest of the server uses it. */
export { auditLogReason } from './audit-log-reason';
export { VERIFIED_ROLE_CHANGE, grantVerified } from './grant-verified';
export { createOutboxRepository, discardMembersOutbox, type DiscardedOutbox } from './outbox.repository';
export { type DiscordAction, type LogCard, type OutboxPort } from './outbox.types';
export {
  queueRoleConnectionUpdate,
  saveGrantQuery,
  takeGrantForDeletion,
  takeGrantsOfMembersSeenBefore,
  tokensFrom,
  type RoleConnectionTokens,
} from './role-connection-grants.repository';
export { fallbackAuditLogReason, storedAuditLogReason } from './audit-log-reason';
export { createOutboxAdminService } from './outbox-admin.service';
export type { OutboxAdminService } from './outbox-admin.service';
export type { OutboxRepository, ParkedSummary } from './outbox.repository';
export type { LogEvent, ManagedRole, OutboxEntry } from './outbox.types';
export { deleteGrant, readGrant, saveGrant } from './role-connection-grants.repository';
export { openSecret } from './sealed-secret';
export { AUDIT_LOG_REASON_MAX } from './audit-log-reason';
