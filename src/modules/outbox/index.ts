/** The outbox module, as the rest of the server uses it. */
export { auditLogReason, fallbackAuditLogReason, storedAuditLogReason, AUDIT_LOG_REASON_MAX } from './audit-log-reason';
export { VERIFIED_ROLE_CHANGE, grantVerified } from './grant-verified';
export {
  createOutboxRepository,
  discardMembersOutbox,
  type DiscardedOutbox,
  type OutboxRepository,
  type ParkedSummary,
} from './outbox.repository';
export { type DiscordAction, type LogCard, type OutboxPort, type LogEvent, type ManagedRole, type OutboxEntry } from './outbox.types';
export {
  queueRoleConnectionUpdate,
  saveGrantQuery,
  takeGrantForDeletion,
  takeGrantsOfMembersSeenBefore,
  tokensFrom,
  type RoleConnectionTokens,
  deleteGrant,
  readGrant,
  saveGrant,
} from './role-connection-grants.repository';
export { createOutboxAdminService, type OutboxAdminService } from './outbox-admin.service';
export { openSecret } from './sealed-secret';
