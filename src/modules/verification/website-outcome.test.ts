import type { DetectedAlt } from './verification.service';
import { joinRoles, websiteEnding, websiteOutcomeLine, type WebsiteEndingInput } from './website-outcome';

const clean = { verdict: 'clean' as const, provider: null, checkFailed: false };
const vpn = { verdict: 'vpn' as const, provider: 'NordVPN', checkFailed: false };
const mainLink: DetectedAlt = {
  discordId: '200',
  username: 'main',
  confidence: 'certain',
  detectionMethod: 'fingerprint',
  memberIsAlt: true,
};

describe('websiteEnding: how a website verification really ended', () => {
  it.each<[WebsiteEndingInput, string]>([
    [{ vpnOutcome: 'verified', certainAlt: false, gate: null }, 'verified'],
    [{ vpnOutcome: 'limited_access', certainAlt: false, gate: null }, 'limited_access'],
    [{ vpnOutcome: 'verified', certainAlt: false, gate: 'limited' }, 'limited_access'],
    [{ vpnOutcome: 'verified', certainAlt: false, gate: 'review' }, 'pending'],
    [{ vpnOutcome: 'limited_access', certainAlt: false, gate: 'review' }, 'pending'],
    [{ vpnOutcome: 'verified', certainAlt: true, gate: null }, 'denied_alt'],
    [{ vpnOutcome: 'verified', certainAlt: true, gate: 'review' }, 'denied_alt'],
    [{ vpnOutcome: 'limited_access', certainAlt: true, gate: null }, 'denied_alt'],
  ])('%j → %s', (input, ending) => expect(websiteEnding(input)).toBe(ending));
});

describe('websiteOutcomeLine: the logs channel never announces a certain alt or a held member as verified', () => {
  const line = (over: Partial<Parameters<typeof websiteOutcomeLine>[0]>) =>
    websiteOutcomeLine({
      discordId: '100',
      vpnOutcome: 'verified',
      certainAlt: false,
      gate: null,
      vpn: clean,
      alts: [],
      markedByStaff: false,
      ...over,
    })?.text ?? null;

  it.each<[string, Partial<Parameters<typeof websiteOutcomeLine>[0]>, string | null]>([
    ['verified', {}, '✅ <@100> completed website verification.'],
    [
      'verified, VPN check unavailable',
      { vpn: { ...clean, checkFailed: true } },
      '✅ <@100> completed website verification (VPN check unavailable: flagged for review).',
    ],
    ['a VPN', { vpnOutcome: 'limited_access', vpn }, '🛡️ <@100> verified on the website behind a VPN (NordVPN): Limited Access only.'],
    ['certain alt found now', { certainAlt: true, alts: [mainLink] }, '⛔ <@100> was denied: certain alt of <@200>.'],
    [
      'certain alt, the main side of the link found is not it',
      { certainAlt: true, alts: [{ ...mainLink, memberIsAlt: false }] },
      '⛔ <@100> was denied: certain alt of an account already verified here.',
    ],
    ['certain alt marked by staff', { certainAlt: true, markedByStaff: true }, '⛔ <@100> was denied: marked certain alt by staff.'],
    [
      'certain alt behind a VPN',
      { certainAlt: true, vpnOutcome: 'limited_access', vpn, alts: [mainLink] },
      '⛔ <@100> was denied: certain alt of <@200>.',
    ],
    ['held for review (the rule has its own line)', { gate: 'review' }, null],
    ['limited by a rule (the rule has its own line)', { gate: 'limited' }, null],
    [
      'held, VPN check unavailable',
      { gate: 'review', vpn: { ...clean, checkFailed: true } },
      '⚠️ <@100>: the VPN check was unavailable; flagged for review.',
    ],
  ])('%s', (_name, over, text) => expect(line(over)).toBe(text));
});

describe('joinRoles: what the website join gives', () => {
  it.each([
    ['verified', 'verified', ['verified']],
    ['verified', 'pending', ['unverified']],
    ['verified', 'denied', ['unverified']],
    ['verified', 'limited', ['unverified']],
    ['denied_alt', 'verified', ['unverified']],
    ['pending', 'verified', ['unverified']],
    ['limited_access', 'verified', ['unverified']],
  ] as const)('ending %s, access before %s → %j', (ending, access, roles) => expect(joinRoles(ending, access)).toEqual(roles));
});
