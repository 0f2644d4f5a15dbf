/** The outbox module, as the rest of the server uses it. */
export { auditLogReason } from './audit-log-reason';
export { VERIFIED_ROLE_CHANGE, grantVerified } from './grant-verified';
export { createOutboxRepository, discardMembersOutbox, type DiscardedOutbox } from './outbox.repository';
export { type DiscordAction, type LogCard, type OutboxPort } from './outbox.types';
export { queueRoleConnectionUpdate, saveGrantQuery, takeGrantForDeletion, tokensFrom, type RoleConnectionTokens } from './role-connection-grants.repository';
