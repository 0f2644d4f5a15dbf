import type { DiscordAction } from './outbox.types';

/** Discord's limit for X-Audit-Log-Reason: 512 characters. */
export const AUDIT_LOG_REASON_MAX = 512;

/**
 * The reason a change carries into Discord's audit log, for a moderator reading it there:
 * "Gatekeeper: " and why (`verified by staff (alice)`), cut to Discord's limit.
 */
export function auditLogReason(why: string): string {
  const text = `Gatekeeper: ${why.replace(/\s+/g, ' ').trim()}`;
  return text.length <= AUDIT_LOG_REASON_MAX ? text : `${text.slice(0, AUDIT_LOG_REASON_MAX - 1)}…`;
}

/** The reason for a change queued without one (rows queued before changes carried their reason). */
export function fallbackAuditLogReason(kind: DiscordAction['kind']): string {
  switch (kind) {
    case 'add_guild_member':
      return auditLogReason('signed in on the website to verify');
    case 'update_roles':
    case 'add_role':
    case 'remove_role':
      return auditLogReason('verification roles changed');
    case 'kick':
    case 'ban':
      return auditLogReason('certain alt, denied');
    case 'unban':
      return auditLogReason('appeal approved');
    case 'log_message':
      return auditLogReason('log message');
    case 'incident_actions':
    case 'verification_level':
      return auditLogReason('lockdown');
    case 'role_connection':
      return auditLogReason('role connection');
  }
}

/** The reason stored with an outbox row, or the fallback for its kind; always within Discord's limit. */
export function storedAuditLogReason(kind: DiscordAction['kind'], payload: Record<string, unknown>): string {
  const stored = typeof payload.reason === 'string' ? payload.reason.trim() : '';
  if (stored === '') return fallbackAuditLogReason(kind);
  return stored.length <= AUDIT_LOG_REASON_MAX ? stored : `${stored.slice(0, AUDIT_LOG_REASON_MAX - 1)}…`;
}
