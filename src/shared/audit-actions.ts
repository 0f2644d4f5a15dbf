/**
 * Every action the audit log records (docs/behaviour.md#audit-log), with the words the
 * audit page's action filter shows. The server's writers use these codes; a test reads the
 * source for the codes it writes, so an action added without words here (and without a
 * sentence in audit-sentence.ts) fails. Pure TypeScript: no DOM, no Node APIs.
 */
export const AUDIT_ACTION_LABELS = {
  'verification.completed': 'Signed in on the website',
  'verification.denied': 'Refused on the website',
  'rules.confirmed': 'Confirmed the rules',
  'button.verified': 'Button: Verified',
  'button.limited': 'Button: Limited Access',
  'button.denied_alt': 'Button: denied as certain alt',
  'member.note_add': 'Note added',
  'member.alt_status': 'Alt status changed',
  'member.manual_verify': 'Verified by hand',
  'member.unverify': 'Verification taken away',
  'member.manual_entry': 'Record created by hand',
  'member.alt_link_dismiss': 'Alt link dismissed',
  'member.alt_link_reopen': 'Alt link reopened',
  'alt_link.rescore': 'Alt link rescored',
  'member.delete': 'Records deleted',
  'shared_network.mark': 'Network marked shared',
  'shared_network.unmark': 'Network unmarked',
  'appeal.filed': 'Appeal filed',
  'appeal.approved': 'Appeal approved',
  'appeal.rejected': 'Appeal rejected',
  'admission.released': 'Held members released',
  'lockdown.on': 'Lockdown on',
  'lockdown.off': 'Lockdown off',
  'raid.alarm': 'Raid alarm',
  'settings.updated': 'Settings changed',
  'staff.setup': 'Owner account created',
  'staff.create': 'Staff account created',
  'staff.delete': 'Staff account deleted',
  'staff.promote': 'Made super admin',
  'staff.demote': 'Super admin removed',
  'staff.password_change': 'Password changed',
  'staff.password_change_failed': 'Password change refused',
  'staff.login': 'Signed in',
  'staff.logout': 'Signed out',
  'staff.login_failed': 'Sign-in failed',
  'staff.login_throttled': 'Sign-ins slowed down',
  'outbox.retry': 'Discord action retried',
  'outbox.failed': 'Discord action failed',
  'retention.purge': 'Retention purge',
  'command.lookup': '/lookup',
  'command.appeals': '/appeals',
  'command.panel': '/panel',
  'command.shared_network_list': '/shared-network list',
  'privacy.show': '/privacy show',
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof AUDIT_ACTION_LABELS;
export const AUDIT_ACTIONS = Object.keys(AUDIT_ACTION_LABELS) as AuditAction[];

export function isAuditAction(value: string): value is AuditAction {
  return Object.hasOwn(AUDIT_ACTION_LABELS, value);
}
