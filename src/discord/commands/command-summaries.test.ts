import type { StoredAttempt, StoredDataReport, Member, AltEntry, UserDetail } from '../../modules/members';
import { lookupSummary } from './lookup-summary';
import { privacySummary } from './privacy-summary';

const AT = new Date('2026-02-01T10:00:00Z');
const LONG_NAME = 'u'.repeat(32);

const member: Member = {
  id: 1,
  discordId: '123456789012345678',
  username: LONG_NAME,
  avatarUrl: 'https://cdn.discordapp.com/avatars/1/a.png',
  status: 'verified',
  source: 'web',
  rulesConfirmed: true,
  manualAltStatus: 'suspected_alt',
  isLinkedAsAlt: false,
  altsFound: 40,
  usedVpn: true,
  vpnAttempts: 3,
  vpnProvider: 'A Rather Long Commercial VPN Provider Name',
  verificationCount: 12,
  fingerprintHash: 'f'.repeat(32),
  networkHash: 'n'.repeat(64),
  guildAccess: 'verified',
  rulesConfirmedAt: AT,
  verifiedAt: AT,
  lastSeenAt: AT,
  createdAt: AT,
  updatedAt: AT,
};

const attempt: StoredAttempt = {
  at: AT,
  outcome: 'limited_access',
  vpnVerdict: 'datacenter',
  vpnProvider: 'A Rather Long Commercial VPN Provider Name',
  vpnCheckFailed: true,
  timezoneMismatch: true,
  ipHashStored: false,
  networkHashStored: false,
  fingerprintHashStored: false,
  browserTokenHashStored: false,
  componentHashesStored: [],
};

describe('privacySummary', () => {
  const report = (attempts: number): StoredDataReport => ({
    member,
    counts: { attempts, altLinks: 40, notes: 7, pendingDiscordActions: 2 },
    attempts: Array.from({ length: Math.min(attempts, 10) }, () => attempt),
    networkMarkedShared: true,
    retentionDays: 30,
    expiresAt: new Date(AT.getTime() + 30 * 24 * 60 * 60 * 1000),
  });

  it('fits one Discord message however much is stored, always ending with the expiry and how to delete', () => {
    const text = privacySummary(report(500));
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toMatch(/…and \d+ older attempts holding the same kinds of data\./);
    const expires = Math.floor(Date.UTC(2026, 2, 3, 10) / 1000);
    expect(text).toContain(`**Expiry:** everything above is deleted automatically <t:${expires}:f>`);
    expect(text.endsWith('Delete it all now with `/privacy delete`.')).toBe(true);
  });

  it('lists every attempt when there are few, and never prints a stored hash', () => {
    const text = privacySummary(report(2));
    expect(text.split('\n').filter((l) => l.startsWith('• <t:'))).toEqual([
      '• <t:1769940000:d> Limited Access (VPN) · datacenter (A Rather Long Commercial VPN Provider Name) · VPN check unavailable, time zone unlike the IP country · hashes: IP ✗ network ✗ fingerprint ✗ browser token ✗ components 0/9',
      '• <t:1769940000:d> Limited Access (VPN) · datacenter (A Rather Long Commercial VPN Provider Name) · VPN check unavailable, time zone unlike the IP country · hashes: IP ✗ network ✗ fingerprint ✗ browser token ✗ components 0/9',
    ]);
    expect(text).not.toContain('older attempt');
    expect(text).not.toContain('f'.repeat(12));
    expect(text).not.toContain('n'.repeat(12));
    expect(text).toContain('Alt-status set by staff: Suspected Alt');
    expect(text).toContain('Staff notes: 7 (their text is internal to staff)');
    expect(text).toContain('staff marked this network as shared');
  });
});

describe('lookupSummary', () => {
  const alt = (i: number, confidence: AltEntry['confidence']): AltEntry => ({
    linkId: i,
    discordId: `9${String(i).padStart(17, '0')}`,
    username: LONG_NAME,
    avatarUrl: null,
    confidence,
    detectionMethod: 'network',
    fingerprintComponents: {},
    otherIs: 'alt',
    // the longest phrase a link reads with: the browser, the address and every component named with its count
    evidence: {
      browserTokenMatch: true,
      ipMatch: true,
      addressShared: 10,
      sharedNetwork: true,
      components: { canvas: true, webgl: true, audio: true, fonts: true, screen: true, timezone: true, language: true, platform: true },
      canvasShared: 63,
      webglShared: 63,
      audioShared: 63,
      fontsShared: 63,
      sharedCountsCappedAt: 63,
    },
    dismissed: null,
  });
  const detail = (alts: AltEntry[]): UserDetail => ({
    id: 1,
    discordId: member.discordId,
    username: member.username,
    avatarUrl: null,
    status: 'verified',
    rulesConfirmed: true,
    manualAltStatus: null,
    isLinkedAsAlt: true,
    altsFound: alts.length,
    usedVpn: true,
    vpnAttempts: 3,
    verificationCount: 12,
    timestamp: AT.toISOString(),
    creationDate: AT.toISOString(),
    fingerprint: null,
    fingerprintComponents: {},
    verificationStatus: 'denied',
    adminNotes: [],
    alts,
    vpnProvider: member.vpnProvider,
    serversVerifiedIn: 1,
    source: 'web',
    evidence: [],
    sharedNetwork: { marked: true, label: 'x'.repeat(100) },
    firstVerifiedAt: AT.toISOString(),
    lastVerifiedAt: AT.toISOString(),
    standingReason: 'Same address as @main',
  });

  it('uses the dashboard badge precedence and fits one message with many alts', () => {
    const many = [
      ...Array.from({ length: 20 }, (_, i) => alt(i, 'certain')),
      ...Array.from({ length: 20 }, (_, i) => alt(100 + i, 'medium')),
      ...Array.from({ length: 20 }, (_, i) => alt(200 + i, 'possible')),
      ...Array.from({ length: 20 }, (_, i) => ({
        ...alt(300 + i, 'medium'),
        dismissed: { at: AT.toISOString(), byName: LONG_NAME, reason: 'x'.repeat(500) },
      })),
    ];
    const reply = lookupSummary(detail(many), 'https://gate.example');
    expect(reply.content.length).toBeLessThanOrEqual(2000);
    expect(reply.content).toContain('**Status:** Certain Alt · VPN (3) · 12x');
    expect(reply.content).toContain('• Certain (20): ');
    expect(reply.content).toContain(', and 18 more');
    expect(reply.content).toContain('; 5 more shared signs (certain)');
    expect(reply.links).toEqual([{ label: 'Open in dashboard', url: `https://gate.example/admin/user/${member.discordId}` }]);
  });

  it('reads a linked member staff marked suspected as suspected, and says the override replaces the link', () => {
    const content = lookupSummary({ ...detail([alt(1, 'certain')]), manualAltStatus: 'suspected_alt' }, 'https://gate.example').content;
    expect(content).toContain('**Status:** Suspected Alt · VPN (3) · 12x');
    expect(content).toContain('**Alt-status override:** Suspected Alt (overrides the detected link: not a certain alt)');
    expect(lookupSummary(detail([]), 'https://gate.example').content).toContain('**Alt-status override:** no override\n');
  });

  it('counts only certain and medium links as alts, and lists the weak ones as evidence without a count', () => {
    const stockPhone = {
      ...alt(7, 'possible'),
      evidence: { fingerprintMatch: true, fingerprintShared: 214, fingerprintNetworks: 180, sharedCountsCappedAt: 300 },
    };
    const content = lookupSummary(
      { ...detail([alt(1, 'medium'), stockPhone, alt(8, 'possible'), alt(9, 'possible')]), isLinkedAsAlt: false },
      'https://gate.example',
    ).content;
    expect(content).toContain('**Alts (1):**');
    expect(content).toContain('• Medium (1): ');
    expect(content).not.toContain('Possible');
    expect(content).toContain(
      `**Shares a device profile or network with:** <@${stockPhone.discordId}> ${LONG_NAME}: same device model as 214 other members on 180 networks (weak, not counted)`,
    );
    expect(content).toMatch(/, and others\n/);
    expect(content).not.toMatch(/Shares a device profile or network with[^:]*\d/);
  });

  it('says so when no alt was found, even with weak evidence', () => {
    expect(lookupSummary(detail([alt(3, 'possible')]), 'https://gate.example').content).toContain('**Alts:** none found');
    expect(lookupSummary(detail([]), 'https://gate.example').content).toContain('**Alts:** none found');
  });
});
