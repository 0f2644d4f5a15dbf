import { AUDIT_LOG_REASON_MAX, auditLogReason, fallbackAuditLogReason, storedAuditLogReason } from './audit-log-reason';

describe("the reason a change carries into Discord's audit log", () => {
  it('says it is Gatekeeper and why, on one line', () => {
    expect(auditLogReason('verified by staff (alice)')).toBe('Gatekeeper: verified by staff (alice)');
    expect(auditLogReason('  Limited Access,\n on a VPN ')).toBe('Gatekeeper: Limited Access, on a VPN');
  });

  it("is cut to Discord's 512 characters", () => {
    const long = auditLogReason(`released from review by staff (${'x'.repeat(600)})`);
    expect(long).toHaveLength(AUDIT_LOG_REASON_MAX);
    expect(long.endsWith('…')).toBe(true);
    expect(storedAuditLogReason('kick', { reason: 'y'.repeat(700) })).toHaveLength(AUDIT_LOG_REASON_MAX);
  });

  it('takes the stored reason, else one for the kind (rows queued before reasons were stored)', () => {
    expect(storedAuditLogReason('update_roles', { add: ['verified'], reason: 'Gatekeeper: verified on the website' })).toBe(
      'Gatekeeper: verified on the website',
    );
    expect(storedAuditLogReason('update_roles', { add: ['verified'] })).toBe(fallbackAuditLogReason('update_roles'));
    expect(storedAuditLogReason('ban', { reason: '   ' })).toBe('Gatekeeper: certain alt, denied');
    expect(storedAuditLogReason('add_guild_member', { roles: ['unverified'], reason: 42 })).toBe(
      'Gatekeeper: signed in on the website to verify',
    );
  });
});
