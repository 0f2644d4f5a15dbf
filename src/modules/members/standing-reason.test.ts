import {
  linkSentence,
  shortDate,
  standingReason,
  strongestCountingLink,
  type ReasonLink,
  type StandingReasonInput,
} from './standing-reason';

const NOW = new Date('2026-11-23T12:00:00Z');
const LINKED = new Date('2026-11-02T09:30:00Z');

function link(method: string, evidence: unknown, extra: Partial<ReasonLink> = {}): ReasonLink {
  return { username: 'main', method, confidence: 'certain', evidence, otherIs: 'main', linkedAt: LINKED, updatedAt: LINKED, ...extra };
}

const base: StandingReasonInput = {
  standing: 'verified',
  manualAltStatus: null,
  status: 'verified',
  admission: null,
  usedVpn: false,
  vpnProvider: null,
  link: null,
  now: NOW,
};

describe('linkSentence', () => {
  it.each<[string, ReasonLink, string]>([
    [
      'fingerprint and address',
      link('both', { fingerprintMatch: true, ipMatch: true, networkMatch: true, componentMatches: 8 }),
      'Shared device profile and address with @main',
    ],
    [
      'fingerprint and network',
      link('both', { fingerprintMatch: true, ipMatch: false, networkMatch: true }),
      'Shared device profile and network with @main',
    ],
    [
      'fingerprint alone',
      link('fingerprint', { fingerprintMatch: true, ipMatch: false, networkMatch: false }),
      'Shared device profile with @main',
    ],
    [
      'components and address',
      link('both', { fingerprintMatch: false, ipMatch: true, networkMatch: true, componentMatches: 3 }),
      'Shared address and matching device components with @main',
    ],
    [
      'components alone',
      link('fingerprint', { fingerprintMatch: false, ipMatch: false, networkMatch: false, componentMatches: 2 }),
      'Matching device components with @main',
    ],
    [
      'address alone',
      link('ip', { fingerprintMatch: false, ipMatch: true, networkMatch: true, componentMatches: 0 }),
      'Same address as @main',
    ],
    ['network alone', link('network', { fingerprintMatch: false, ipMatch: false, networkMatch: true }), 'Same network as @main'],
    [
      'address on a shared network (not evidence)',
      link('both', { fingerprintMatch: true, ipMatch: true, networkMatch: true, sharedNetwork: true }),
      'Shared device profile with @main',
    ],
    ['a staff link', link('manual', {}), 'Linked by staff to @main'],
    ['a browser token, dated by the link', link('browser', {}), 'Same browser as @main on 2 Nov'],
    ['a browser token with its own date', link('browser', { seenAt: '2026-10-30T23:00:00Z' }), 'Same browser as @main on 30 Oct'],
    ['a browser token last year', link('browser', { seenAt: '2025-11-02T10:00:00Z' }), 'Same browser as @main on 2 Nov 2025'],
    ['a browser token with a broken date', link('browser', { seenAt: 'yesterday' }), 'Same browser as @main on 2 Nov'],
    ['old evidence without flags, method both', link('both', {}), 'Shared device profile and address with @main'],
    ['old evidence without flags, method ip', link('ip', null), 'Same address as @main'],
    ['old evidence without flags, method network', link('network', 'not an object'), 'Same network as @main'],
    ['old evidence without flags, method fingerprint', link('fingerprint', []), 'Shared device profile with @main'],
    ['an unknown method', link('sixth-sense', { whatever: 1 }), 'Linked to @main'],
    ['an unknown method with known evidence', link('sixth-sense', { ipMatch: true }), 'Same address as @main'],
    ['flags that say nothing matched', link('ip', { fingerprintMatch: false, ipMatch: false, networkMatch: false }), 'Linked to @main'],
  ])('%s', (_case, input, sentence) => {
    expect(linkSentence(input, NOW)).toBe(sentence);
  });
});

describe('standingReason', () => {
  const sameAddress = link('ip', { ipMatch: true });
  it.each<[string, Partial<StandingReasonInput>, string | null]>([
    ['a clean verified member', {}, null],
    ['a pending member', { standing: 'pending' }, null],
    ['a manual certain alt', { standing: 'certain_alt', manualAltStatus: 'certain_alt' }, 'Marked certain alt by staff'],
    [
      'a manual certain alt with a link too',
      { standing: 'certain_alt', manualAltStatus: 'certain_alt', link: sameAddress },
      'Marked certain alt by staff',
    ],
    [
      'a manual suspected alt',
      { standing: 'suspected_alt', manualAltStatus: 'suspected_alt', link: sameAddress },
      'Marked suspected alt by staff',
    ],
    [
      'a member linked as alt',
      { standing: 'certain_alt', link: link('both', { fingerprintMatch: true, ipMatch: true }) },
      'Shared device profile and address with @main',
    ],
    [
      'a verified member with a medium link',
      { link: link('ip', { ipMatch: true }, { confidence: 'medium', otherIs: 'alt', username: 'newer' }) },
      'Same address as @newer',
    ],
    [
      'a held member',
      { standing: 'pending', admission: { action: 'review', reason: 'The server is in lockdown (raid)' } },
      'Held for staff review: The server is in lockdown (raid)',
    ],
    ['a held member without a reason', { standing: 'pending', admission: { action: 'review', reason: null } }, 'Held for staff review'],
    [
      'Limited Access by the age gate',
      {
        standing: 'limited',
        status: 'limited_access',
        admission: { action: 'limited', reason: 'Discord account is 2 days old; this server requires 7' },
      },
      'Limited Access: Discord account is 2 days old; this server requires 7',
    ],
    [
      'Limited Access after a VPN',
      { standing: 'limited', status: 'limited_access', usedVpn: true, vpnProvider: 'NordVPN' },
      'Limited Access after a VPN check (NordVPN)',
    ],
    [
      'Limited Access after a VPN of no known provider',
      { standing: 'limited', status: 'limited_access', usedVpn: true },
      'Limited Access after a VPN check',
    ],
    [
      'Limited Access with a medium link',
      {
        standing: 'limited',
        status: 'limited_access',
        usedVpn: true,
        vpnProvider: 'Mullvad',
        link: { ...sameAddress, confidence: 'medium' },
      },
      'Limited Access after a VPN check (Mullvad)',
    ],
    ['Limited Access with nothing recorded', { standing: 'limited', status: 'limited_access' }, 'Limited Access'],
    ['Limited Access linked as alt', { standing: 'certain_alt', status: 'limited_access', link: sameAddress }, 'Same address as @main'],
  ])('%s', (_case, input, sentence) => {
    expect(standingReason({ ...base, ...input })).toBe(sentence);
  });
});

describe('strongestCountingLink', () => {
  const l = (confidence: string, otherIs: 'main' | 'alt', username: string, dismissal: { at: Date } | null = null) => ({
    confidence,
    otherIs,
    username,
    dismissal,
  });
  it.each([
    ['no links', [], false, null],
    ['only possible links', [l('possible', 'main', 'a')], false, null],
    ['the first counting link', [l('medium', 'alt', 'a'), l('medium', 'main', 'b')], false, 'a'],
    ['skips possible links', [l('possible', 'main', 'a'), l('medium', 'main', 'b')], false, 'b'],
    ['the main of a certain link for a member linked as alt', [l('certain', 'alt', 'a'), l('certain', 'main', 'b')], true, 'b'],
    ['the first counting link when no certain main exists', [l('certain', 'alt', 'a')], true, 'a'],
    ['skips a dismissed link ("Not the same person")', [l('certain', 'main', 'a', { at: LINKED }), l('medium', 'main', 'b')], false, 'b'],
    ['only dismissed links name nobody', [l('certain', 'main', 'a', { at: LINKED })], true, null],
  ] as const)('%s', (_case, links, linkedAsAlt, expected) => {
    expect(strongestCountingLink(links, linkedAsAlt)?.username ?? null).toBe(expected);
  });
});

describe('shortDate', () => {
  it('writes day and month in UTC, with the year only when it is not this one', () => {
    expect(shortDate(new Date('2026-01-01T00:30:00Z'), NOW)).toBe('1 Jan');
    expect(shortDate(new Date('2024-12-31T23:59:00Z'), NOW)).toBe('31 Dec 2024');
  });
});
