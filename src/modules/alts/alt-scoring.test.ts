import fc from 'fast-check';
import {
  canBeFlagged,
  compareComponents,
  COMPARED_COMPONENTS,
  hasDeviceIdentity,
  isStrongerScore,
  RARITY,
  scoreCandidate,
  type AltConfidence,
  type AnonymityCounts,
  type AttemptSignals,
  type ComparedComponent,
  type DetectedAltMethod,
} from './alt-scoring';
import { RARE_COMPONENT_OTHERS } from '../../shared/alt-evidence-words';

/**
 * Attempts are written as short specs: `ip`, `net`, `fp` name the hash values, `tok` the
 * browser token's (none unless given); each component is a value name, or null for
 * absent. Equal names = equal hashes.
 */
type Spec = { ip?: string | null; net?: string | null; fp?: string | null; tok?: string | null } & Partial<
  Record<ComparedComponent, string | null>
>;

function attempt(spec: Spec): AttemptSignals {
  const components = Object.fromEntries(COMPARED_COMPONENTS.map((c) => [`${c}Hash`, spec[c] === undefined ? `${c}-A` : spec[c]]));
  return {
    ipHash: spec.ip === undefined ? 'ip-A' : spec.ip,
    networkHash: spec.net === undefined ? 'net-A' : spec.net,
    fingerprintHash: spec.fp === undefined ? 'fp-A' : spec.fp,
    browserTokenHash: spec.tok ?? null,
    ...components,
  } as AttemptSignals;
}

/** A different device: every component differs from the defaults. */
const otherDevice: Spec = Object.fromEntries(COMPARED_COMPONENTS.map((c) => [c, `${c}-B`]));
const otherPlace: Spec = { ip: 'ip-B', net: 'net-B' };
const lowOnly: Spec = { canvas: 'canvas-B', webgl: 'webgl-B', audio: 'audio-B', fonts: 'fonts-B' };
const allAbsent: Spec = { ip: null, net: null, fp: null, ...Object.fromEntries(COMPARED_COMPONENTS.map((c) => [c, null])) };
const highAbsent: Spec = { canvas: null, webgl: null, audio: null, fonts: null };

/**
 * The anonymity sets as the lookup reports them for the new attempt (other members than
 * its own, the candidate included). RARE: the candidate is the only other member showing
 * any of the attempt's values (a home address, an uncommon device).
 */
const RARE: AnonymityCounts = {
  fingerprint: 1,
  fingerprintNetworks: 1,
  address: 1,
  addressFingerprint: 1,
  canvas: 1,
  webgl: 1,
  audio: 1,
  fonts: 1,
  browserTokenNetworks: 1,
  members: RARITY.membersToJudgeRarity,
};
/** A popular phone model: hundreds of members on many networks show its fingerprint and each device component. */
const popularDevice: Partial<AnonymityCounts> = { fingerprint: 64, fingerprintNetworks: 40, canvas: 64, webgl: 64, audio: 64, fonts: 64 };
/** Hundreds on one address (a dorm, a carrier NAT) and a popular phone model. */
const crowdedPopular: Partial<AnonymityCounts> = { ...popularDevice, address: 64, addressFingerprint: 64 };
/** Another browser on the same machine: canvas, WebGL and audio differ (another engine), the font list and the settings stay. */
const secondBrowser: Spec = { fp: 'fp-B', canvas: 'canvas-B', webgl: 'webgl-B', audio: 'audio-B' };
/** One browser profile: both attempts carry the same token. */
const token: Spec = { tok: 'tok-A' };
const context = (sharedNetwork: boolean, counts: Partial<AnonymityCounts> = {}) => ({ sharedNetwork, counts: { ...RARE, ...counts } });

type Row = [
  label: string,
  candidate: Spec,
  shared: boolean,
  confidence: AltConfidence | null,
  method: DetectedAltMethod | null,
  newAttempt?: Spec,
  counts?: Partial<AnonymityCounts>,
];

// the new attempt is attempt({}) (ip-A, net-A, fp-A, all components A) unless the row says otherwise.
// Rows that said 'medium' and now say 'possible' changed with the tiers: medium makes an alt
// badge, so the badge tier must be right at least nine times in ten on P8's labelled
// population and each medium rule must say why its evidence is one device. Measured there (scripts/bench/p8-proposal.ts, alts / strangers linked): the same
// fingerprint on a home address with its household (siblings' same-model phones) 201 / 297;
// a home address with the same machine settings 22 / 27; a rare component from another place
// with the same settings 9 / 10. They are evidence staff see, never a badge. The same rare
// fingerprint from another place (a device that moved: 24 / 3, 88.9%, its false links between
// households, not siblings) said 'possible' for a while and is 'medium' again: the badge tier
// is judged as a whole (at least 90% precise, at most 300 false badges per 10k members).
const rows: Row[] = [
  // certain: the same address and device evidence nobody else shows
  ['same IP + same fingerprint no other member shows', {}, false, 'certain', 'both'],
  ['incognito: fresh profile of the same browser, same address, rare fingerprint', {}, false, 'certain', 'both'],
  [
    'same IP + canvas/webgl/audio equal and unseen elsewhere, rest differs',
    { fp: 'fp-B', fonts: 'fonts-B', screen: 'screen-B', timezone: 'tz-B', language: 'l-B', platform: 'p-B' },
    false,
    'certain',
    'both',
    {},
    { canvas: 1, webgl: 1, audio: 1 },
  ],
  ['same IP + same fingerprint, other network hash (IPv6 privacy)', { net: 'net-B' }, false, 'certain', 'both'],
  ['CGNAT: one rare device behind an address shared by thousands', {}, false, 'certain', 'both', {}, { address: 64 }],
  // medium
  [
    'sibling: same popular phone model on the same home address',
    {},
    false,
    'possible',
    'both',
    {},
    { ...popularDevice, address: 2, addressFingerprint: 2 },
  ],
  [
    'household of four with the same popular phone model',
    {},
    false,
    'possible',
    'both',
    {},
    { ...popularDevice, address: 4, addressFingerprint: 4 },
  ],
  [
    'same IP + same fingerprint (and device) one other member shows elsewhere',
    {},
    false,
    'medium',
    'both',
    {},
    { fingerprint: 2, canvas: 2, webgl: 2, audio: 2 },
  ],
  [
    'same IP + canvas/webgl/audio equal, canvas shown by another member',
    { fp: 'fp-B', fonts: 'fonts-B' },
    false,
    'medium',
    'both',
    {},
    { canvas: 2 },
  ],
  [
    'same IP + canvas/webgl/fonts + screen equal, audio differs',
    { fp: 'fp-B', audio: 'audio-B', timezone: 'tz-B' },
    false,
    'medium',
    'both',
  ],
  ['same IP + three high-entropy equal but screen differs', { fp: 'fp-B', audio: 'audio-B', screen: 'screen-B' }, false, 'medium', 'both'],
  [
    'private window: canvas and audio noised, webgl and fonts kept',
    { fp: 'fp-B', canvas: 'canvas-B', audio: 'audio-B' },
    false,
    'medium',
    'both',
  ],
  ['second browser on the same machine: settings equal, device probes differ', { ...lowOnly, fp: 'fp-B' }, false, 'possible', 'both'],
  ['same IP + canvas and webgl equal only', { ...otherDevice, fp: 'fp-B', canvas: 'canvas-A', webgl: 'webgl-A' }, false, 'medium', 'both'],
  [
    'same IP + fonts and time zone equal',
    { ...otherDevice, fp: 'fp-B', fonts: 'fonts-A', timezone: 'timezone-A' },
    false,
    'medium',
    'both',
  ],
  ['same rare fingerprint from another place', { ...otherPlace }, false, 'medium', 'fingerprint'],
  ['same rare fingerprint from the same network, other IP', { ip: 'ip-B' }, false, 'medium', 'fingerprint'],
  ['same rare fingerprint on a shared network, same IP', {}, true, 'medium', 'fingerprint'],
  ['same rare fingerprint on a shared network, other IP', { ip: 'ip-B' }, true, 'medium', 'fingerprint'],
  [
    'a moved device: its fingerprint two other members show, with a font list one other member shows',
    { ...otherPlace },
    false,
    'medium',
    'fingerprint',
    {},
    { fingerprint: 3, canvas: 30, webgl: 30, audio: 30, fonts: 2 },
  ],
  [
    'the same fingerprint elsewhere, two other members show it, every component common (a stock model)',
    { ...otherPlace },
    false,
    null,
    null,
    {},
    { fingerprint: 3, canvas: 30, webgl: 30, audio: 30, fonts: 30 },
  ],
  // the same machine from another place: a rare device component and the same machine settings
  [
    'second browser after a move: its own font list (nobody else shows it), same settings',
    { ...otherPlace, ...secondBrowser },
    false,
    'possible',
    'fingerprint',
    {},
    { ...popularDevice, fonts: 1 },
  ],
  [
    'second browser on another address of a carrier NAT: its own font list, one other member shows it',
    { ...secondBrowser, ip: 'ip-B' },
    false,
    'possible',
    'fingerprint',
    {},
    { ...crowdedPopular, fonts: 2 },
  ],
  [
    'second browser on a network marked shared: its own font list, same settings',
    secondBrowser,
    true,
    'possible',
    'fingerprint',
    {},
    { ...crowdedPopular, fonts: 1 },
  ],
  [
    'private window after a move: noised canvas and audio, own WebGL read-out, same settings',
    { ...otherPlace, fp: 'fp-B', canvas: 'canvas-B', audio: 'audio-B' },
    false,
    'possible',
    'fingerprint',
    {},
    { ...popularDevice, webgl: 1 },
  ],
  // possible
  ['same IP, different device', { ...otherDevice, fp: 'fp-B' }, false, 'possible', 'ip'],
  [
    'same IP, one high-entropy component equal and nothing else',
    { ...otherDevice, fp: 'fp-B', canvas: 'canvas-A' },
    false,
    'possible',
    'ip',
  ],
  ['same IP, candidate device unreadable', { ...highAbsent, fp: 'fp-B' }, false, 'possible', 'ip'],
  [
    'same network + partial match (canvas + time zone)',
    { ...otherDevice, ip: 'ip-B', fp: 'fp-B', canvas: 'canvas-A', timezone: 'timezone-A' },
    false,
    'possible',
    'network',
  ],
  ['same network + strong match, other IP', { ip: 'ip-B', fp: 'fp-B', screen: 'screen-B' }, false, 'possible', 'network'],
  [
    'same network, one rare high-entropy component',
    { ...otherDevice, ip: 'ip-B', fp: 'fp-B', fonts: 'fonts-A' },
    false,
    'possible',
    'network',
  ],
  ['crowded address + a rare component', { ...otherDevice, fp: 'fp-B', canvas: 'canvas-A' }, false, 'possible', 'ip', {}, { address: 300 }],
  // the browser token: one browser profile, whatever the address or the device's popularity
  ['same browser token: popular phone behind a carrier NAT', token, false, 'certain', 'browser', token, crowdedPopular],
  [
    'same browser token: popular phone in a dorm, other IP of the campus',
    { ...token, ip: 'ip-B' },
    false,
    'certain',
    'browser',
    token,
    crowdedPopular,
  ],
  ['same browser token: popular phone from another place', { ...token, ...otherPlace }, false, 'certain', 'browser', token, popularDevice],
  ['same browser token on a network marked shared', token, true, 'certain', 'browser', token, crowdedPopular],
  [
    'same browser token after a browser update (canvas changed, rest equal)',
    { ...token, fp: 'fp-B', canvas: 'canvas-B' },
    false,
    'certain',
    'browser',
    token,
    crowdedPopular,
  ],
  [
    'same browser token, other members carried it on three networks',
    token,
    false,
    'certain',
    'browser',
    token,
    { ...crowdedPopular, browserTokenNetworks: 3 },
  ],
  // a token is one signal among others: never a link to a stranger by itself
  [
    "another visitor's token on a different device, other place",
    { ...token, ...otherDevice, ...otherPlace, fp: 'fp-B' },
    false,
    null,
    null,
    token,
  ],
  [
    "another visitor's token on a different device behind the same carrier NAT",
    { ...token, ...otherDevice, fp: 'fp-B' },
    false,
    null,
    null,
    token,
    { address: 64 },
  ],
  [
    "another visitor's token on a different phone of a common setup (default fonts, screen, locale)",
    { ...token, ...otherPlace, fp: 'fp-B', canvas: 'canvas-B', webgl: 'webgl-B', audio: 'audio-B' },
    false,
    null,
    null,
    token,
    popularDevice,
  ],
  [
    "another visitor's token, two device components equal, same home address: the address decides",
    { ...token, fp: 'fp-B', canvas: 'canvas-B', audio: 'audio-B' },
    false,
    'medium',
    'both',
    token,
  ],
  [
    'token carried on more than three networks, popular phone elsewhere',
    { ...token, ...otherPlace },
    false,
    null,
    null,
    token,
    { ...popularDevice, browserTokenNetworks: 4 },
  ],
  [
    'token carried on more than three networks, same home address and rare fingerprint (falls back to the rest)',
    token,
    false,
    'certain',
    'both',
    token,
    { browserTokenNetworks: 40 },
  ],
  [
    'different tokens: the rest decides (sibling, same popular phone at home)',
    { tok: 'tok-B' },
    false,
    'possible',
    'both',
    token,
    { ...popularDevice, address: 2, addressFingerprint: 2 },
  ],
  ['tampered token (matches nobody): the rest decides', { tok: 'tok-B' }, false, 'certain', 'both', { tok: 'garbage' }],
  // incognito and fresh profiles lose the token and fall back to the other evidence
  [
    'incognito (Chromium keeps canvas and audio): popular phone behind a carrier NAT',
    { tok: null },
    false,
    null,
    null,
    token,
    crowdedPopular,
  ],
  [
    'incognito (Chromium): popular phone at home with its household',
    { tok: null },
    false,
    'possible',
    'both',
    token,
    { ...popularDevice, address: 3, addressFingerprint: 2 },
  ],
  [
    'incognito (Safari/Firefox noise canvas and audio): popular phone behind a carrier NAT',
    { tok: null, fp: 'fp-B', canvas: 'canvas-B', audio: 'audio-B' },
    false,
    null,
    null,
    token,
    crowdedPopular,
  ],
  [
    'incognito (Safari/Firefox noise canvas and audio): own fonts, behind a carrier NAT',
    { tok: null, fp: 'fp-B', canvas: 'canvas-B', audio: 'audio-B' },
    false,
    'medium',
    'both',
    token,
    { ...crowdedPopular, fonts: 1 },
  ],
  // nothing
  [
    'dorm: same address as hundreds, same popular phone model',
    {},
    false,
    null,
    null,
    {},
    { ...popularDevice, address: 64, addressFingerprint: 20 },
  ],
  [
    'dorm: two residents with the same popular phone, each its own token',
    { tok: 'tok-B' },
    false,
    null,
    null,
    token,
    { ...popularDevice, address: 64, addressFingerprint: 20 },
  ],
  [
    'dorm: same /24 as hundreds, same popular phone model, other IP',
    { ip: 'ip-B' },
    false,
    null,
    null,
    {},
    { ...popularDevice, address: 64 },
  ],
  [
    'CGNAT: thousands on one address, popular phone model',
    {},
    false,
    null,
    null,
    {},
    { ...popularDevice, address: 64, addressFingerprint: 64 },
  ],
  ['CGNAT: thousands on one address, different device', { ...otherDevice, fp: 'fp-B' }, false, null, null, {}, { address: 64 }],
  ['same popular fingerprint from another place', { ...otherPlace }, false, null, null, {}, popularDevice],
  [
    'same fingerprint from another place, three others show it',
    { ...otherPlace },
    false,
    null,
    null,
    {},
    { fingerprint: 4, canvas: 4, webgl: 4, audio: 4, fonts: 4 },
  ],
  [
    'strangers with the same popular component and settings on two networks (same model, same city)',
    { ...otherPlace, ...secondBrowser },
    false,
    null,
    null,
    {},
    { ...popularDevice, fonts: 30 },
  ],
  [
    'strangers sharing a component two other members also show, same settings, other places',
    { ...otherPlace, ...secondBrowser },
    false,
    null,
    null,
    {},
    { ...popularDevice, fonts: 3 },
  ],
  [
    'a new server: a font list nobody else shows and the same settings elsewhere, but no component of the attempt common here yet',
    { ...otherPlace, ...secondBrowser },
    false,
    null,
    null,
    {},
    { fonts: 1 },
  ],
  [
    "a small server: the attempt's most common component shown by 9 other members, a rare font list elsewhere",
    { ...otherPlace, ...secondBrowser },
    false,
    null,
    null,
    {},
    { canvas: 9, webgl: 9, audio: 9, fonts: 1 },
  ],
  [
    'a rare component from another place, but another screen (not the same machine)',
    { ...otherPlace, ...secondBrowser, screen: 'screen-B' },
    false,
    null,
    null,
    {},
    { ...popularDevice, fonts: 1 },
  ],
  [
    'a rare component on another address of a carrier NAT, but another time zone',
    { ...secondBrowser, ip: 'ip-B', timezone: 'tz-B' },
    false,
    'possible',
    'network',
    {},
    { ...crowdedPopular, fonts: 1 },
  ],
  ['same network, different device', { ...otherDevice, ip: 'ip-B', fp: 'fp-B' }, false, null, null],
  ['same network, only low-entropy components equal', { ...lowOnly, ip: 'ip-B', fp: 'fp-B' }, false, null, null],
  [
    'same network, one popular high-entropy component',
    { ...otherDevice, ip: 'ip-B', fp: 'fp-B', fonts: 'fonts-A' },
    false,
    null,
    null,
    {},
    { fonts: 30 },
  ],
  ['nothing in common', { ...otherDevice, ...otherPlace, fp: 'fp-B' }, false, null, null],
  ['strong component match from another place (identical phones)', { ...otherPlace, fp: 'fp-B', screen: 'screen-B' }, false, null, null],
  [
    'partial match from another place',
    { ...otherDevice, ...otherPlace, fp: 'fp-B', canvas: 'canvas-A', webgl: 'webgl-A' },
    false,
    null,
    null,
  ],
  ['Limited Access candidate (nothing recorded)', allAbsent, false, null, null],
  // shared networks: IP and network evidence stop counting
  ['shared network: same IP, different device', { ...otherDevice, fp: 'fp-B' }, true, null, null],
  ['shared network: same IP + strong components', { fp: 'fp-B', screen: 'screen-B' }, true, null, null],
  ['shared network: same IP + partial match', { ...otherDevice, fp: 'fp-B', canvas: 'canvas-A', webgl: 'webgl-A' }, true, null, null],
  [
    'shared network: same network + partial match',
    { ...otherDevice, ip: 'ip-B', fp: 'fp-B', canvas: 'canvas-A', timezone: 'timezone-A' },
    true,
    null,
    null,
  ],
  // fingerprints without device identity
  ['same IP + equal fingerprint with every high-entropy probe failed', { ...highAbsent }, false, 'possible', 'ip', highAbsent],
  ['equal fingerprint with every high-entropy probe failed, other place', { ...highAbsent, ...otherPlace }, false, null, null, highAbsent],
];

describe('scoreCandidate', () => {
  const table = rows.map(([label, candidate, shared, confidence, method, newAttempt, counts]) => ({
    label,
    candidate,
    shared,
    confidence,
    method,
    newAttempt: newAttempt ?? {},
    counts,
  }));

  it.each(table)('$label → $confidence ($method)', ({ candidate, shared, confidence, method, newAttempt, counts }) => {
    const score = scoreCandidate(attempt(newAttempt), attempt(candidate), context(shared, counts));
    expect(score.confidence).toBe(confidence);
    expect(score.detectionMethod).toBe(method);
    expect(score.evidence.sharedNetwork).toBe(shared);
  });

  it('words a rare component with the same threshold as scoring', () => {
    expect(RARE_COMPONENT_OTHERS).toBe(RARITY.rareComponentOthers);
  });

  it('is symmetric in confidence', () => {
    for (const { candidate, shared, confidence, newAttempt, counts } of table) {
      expect(scoreCandidate(attempt(candidate), attempt(newAttempt), context(shared, counts)).confidence).toBe(confidence);
    }
  });

  it('records the evidence', () => {
    const { evidence } = scoreCandidate(
      attempt({}),
      attempt({ ip: 'ip-B', fp: 'fp-B', audio: 'audio-B', language: null }),
      context(false, { canvas: 215, webgl: 3, fonts: 64 }),
    );
    expect(evidence).toEqual({
      components: {
        canvas: true,
        webgl: true,
        audio: false,
        fonts: true,
        screen: true,
        timezone: true,
        language: undefined,
        platform: true,
      },
      ipMatch: false,
      networkMatch: true,
      fingerprintMatch: false,
      browserTokenMatch: false,
      browserTokenNetworks: null,
      sharedNetwork: false,
      strongComponentMatches: 3,
      componentMatches: 6,
      // rarer shared components order first: webgl shown by 2 others adds 8, the popular ones nothing
      score: 10 + 3 * 8 + 3 * 2 + 8,
      // besides the two accounts: the moderator's "shared by N other members"
      fingerprintShared: null,
      fingerprintNetworks: null,
      addressShared: null,
      canvasShared: 214,
      webglShared: 2,
      audioShared: null,
      fontsShared: 63,
      sharedCountsCappedAt: 63,
      // the account-age evidence (no creation times given: not young) and the new-server prior (a server of RARITY.membersToJudgeRarity)
      youngAccount: false,
      rarityJudged: true,
    });
    // absent components vanish from the stored JSON: "absent" in the spec's fingerprintComponents
    expect(JSON.parse(JSON.stringify(evidence.components))).toEqual({
      canvas: true,
      webgl: true,
      audio: false,
      fonts: true,
      screen: true,
      timezone: true,
      platform: true,
    });
  });

  it('keeps the raw IP match in the evidence on a shared network, without counting it', () => {
    const score = scoreCandidate(attempt({}), attempt({ ...otherDevice, fp: 'fp-B' }), context(true));
    expect(score.evidence).toMatchObject({ ipMatch: true, networkMatch: true, sharedNetwork: true, score: 0, addressShared: 0 });
  });
});

describe('the new-server prior', () => {
  /**
   * `n` members verify one after another, each from its own network, all with one stock
   * phone profile (the same fingerprint and components), or all on one home address; each
   * new attempt is scored against every earlier one, with the counts the lookup would give
   * (every earlier member shows each value) and the server's size so far.
   */
  function verifyInTurn(
    n: number,
    options: { sameAddress: boolean; stockProfile: boolean | null; tokens?: boolean },
  ): (AltConfidence | null)[] {
    const found: (AltConfidence | null)[] = [];
    const of = (k: number): AttemptSignals => ({
      ...attempt(options.sameAddress ? {} : { ip: `ip-${k}`, net: `net-${k}` }),
      browserTokenHash: options.tokens ? 'tok-shared' : null,
      stockProfile: options.stockProfile,
    });
    for (let k = 1; k < n; k++) {
      const others = k; // members before this one, every one showing the profile
      const counts: AnonymityCounts = {
        fingerprint: others,
        fingerprintNetworks: options.sameAddress ? 1 : others,
        address: options.sameAddress ? others : 0,
        addressFingerprint: options.sameAddress ? others : 0,
        canvas: others,
        webgl: others,
        audio: others,
        fonts: others,
        browserTokenNetworks: options.tokens ? 1 : 0,
        members: k,
      };
      for (let j = 0; j < k; j++) found.push(scoreCandidate(of(k), of(j), { sharedNetwork: false, counts }).confidence);
    }
    return found;
  }
  const badge = (c: AltConfidence | null) => c === 'certain' || c === 'medium';

  it.each([3, 10, 50])('%i members on separate networks sharing one stock phone profile: nobody gets medium or certain', (n) => {
    expect(verifyInTurn(n, { sameAddress: false, stockProfile: true }).filter(badge)).toEqual([]);
    expect(verifyInTurn(n, { sameAddress: false, stockProfile: null }).filter(badge)).toEqual([]);
  });

  it.each([3, 10, 50])(
    '%i members on one address (a household, a dorm) sharing one stock phone profile: nobody gets medium or certain on a new server',
    (n) => {
      // without the prior, the first two are "the same fingerprint no other member shows on the same address": certain
      expect(verifyInTurn(n, { sameAddress: true, stockProfile: true }).filter(badge)).toEqual([]);
    },
  );

  it('judges a profile that does not look stock by its rarity on a new server', () => {
    // two members at one address with a profile no one else shows: the same device
    expect(verifyInTurn(2, { sameAddress: true, stockProfile: false })).toEqual(['certain']);
  });

  it('never links strangers on separate networks who share one desktop browser build, on a new server (not a stock phone, so its components are judged)', () => {
    // 3, 10 and 50 members, each on their own network, one identical profile that does not look stock:
    // nobody gets a badge; a whole fingerprint is called rare only once the server holds enough members
    for (const k of [3, 10, 50])
      expect(verifyInTurn(k, { sameAddress: false, stockProfile: false }).filter((c) => c === 'certain' || c === 'medium')).toEqual([]);
  });

  it('keeps two accounts in one browser (the same token) certain on a new server', () => {
    expect(verifyInTurn(2, { sameAddress: false, stockProfile: true, tokens: true })).toEqual(['certain']);
    expect(verifyInTurn(3, { sameAddress: true, stockProfile: true, tokens: true })).toEqual(['certain', 'certain', 'certain']);
  });

  it('judges rarity again once the server holds RARITY.membersToJudgeRarity members', () => {
    const stock = { ...attempt({}), stockProfile: true };
    const at = (members: number) => scoreCandidate(stock, attempt({}), context(false, { members })).confidence;
    expect(at(RARITY.membersToJudgeRarity - 1)).toBe('possible');
    expect(at(RARITY.membersToJudgeRarity)).toBe('certain');
  });
});

describe('the account-age evidence', () => {
  const DAY = 24 * 3600 * 1000;
  const now = Date.UTC(2026, 10, 1);
  const score = (createdDaysAgo: number, candidateCreatedDaysAgo: number) =>
    scoreCandidate(
      { ...attempt({}), accountCreatedMs: now - createdDaysAgo * DAY },
      { ...attempt({}), accountCreatedMs: now - candidateCreatedDaysAgo * DAY },
      { ...context(false), attemptAtMs: now },
    );

  it('marks an account made at most RARITY.youngAccountDays before it verifies, newer than the candidate, as young', () => {
    expect(score(0.5, 400).evidence.youngAccount).toBe(true);
    expect(score(RARITY.youngAccountDays, 400).evidence.youngAccount).toBe(true);
    expect(score(RARITY.youngAccountDays + 0.01, 400).evidence.youngAccount).toBe(false);
    // the candidate's account is the newer one: the attempt's is not the alt made for the purpose
    expect(score(2, 1).evidence.youngAccount).toBe(false);
  });

  it('is no evidence without the creation times or the attempt time', () => {
    expect(scoreCandidate(attempt({}), attempt({}), context(false)).evidence.youngAccount).toBe(false);
  });
});

describe('canBeFlagged', () => {
  it.each(
    rows.map(([label, candidate, shared, confidence, , newAttempt, counts]) => ({
      label,
      candidate,
      shared,
      confidence,
      newAttempt: newAttempt ?? {},
      counts,
    })),
  )('$label: flaggable when scored ($confidence)', ({ candidate, shared, confidence, newAttempt, counts }) => {
    const flaggable = canBeFlagged(attempt(newAttempt), attempt(candidate), context(shared, counts));
    if (confidence !== null) expect(flaggable).toBe(true);
  });

  it('is false for a candidate that shares only popular device components, however many', () => {
    const sameModelElsewhere = attempt({ ...otherPlace, fp: 'fp-B' });
    const popular = context(false, { ...popularDevice, fonts: 3, audio: 4 });
    expect(scoreCandidate(attempt({}), sameModelElsewhere, popular).confidence).toBeNull();
    expect(canBeFlagged(attempt({}), sameModelElsewhere, popular)).toBe(false);
    // one of them rare (at most one other member shows it): the same machine, read on any network
    expect(canBeFlagged(attempt({}), sameModelElsewhere, context(false, { ...popularDevice, fonts: 1 }))).toBe(true);
    expect(canBeFlagged(attempt({}), sameModelElsewhere, context(true, { ...popularDevice, fonts: 2 }))).toBe(true);
  });

  it('holds for every flagged candidate: scoring never flags one that shares no token, address, network, fingerprint or rare component', () => {
    // two values per signal (or absent) so that equal and different both come up often
    const value = (name: string) => fc.constantFrom(`${name}-A`, `${name}-B`, null);
    const spec = fc.record({
      ip: value('ip'),
      net: value('net'),
      fp: value('fp'),
      tok: value('tok'),
      ...Object.fromEntries(COMPARED_COMPONENTS.map((c) => [c, value(c)])),
    }) as fc.Arbitrary<Spec>;
    fc.assert(
      // and any anonymity counts: beyond a rare component, rarity decides the confidence, not which candidates are read
      fc.property(
        spec,
        spec,
        fc.boolean(),
        fc.array(fc.integer({ min: 0, max: 64 }), { minLength: 9, maxLength: 9 }),
        fc.boolean(),
        (a, b, sharedNetwork, n, members) => {
          const [fingerprint, fingerprintNetworks, address, addressFingerprint, canvas, webgl, audio, fonts, browserTokenNetworks] = n as [
            number,
            number,
            number,
            number,
            number,
            number,
            number,
            number,
            number,
          ];
          const counts = {
            fingerprint,
            fingerprintNetworks,
            address,
            addressFingerprint,
            canvas,
            webgl,
            audio,
            fonts,
            browserTokenNetworks,
            members: members ? RARITY.membersToJudgeRarity : 3,
          };
          const flagged = scoreCandidate(attempt(a), attempt(b), { sharedNetwork, counts }).confidence !== null;
          return !flagged || canBeFlagged(attempt(a), attempt(b), { sharedNetwork, counts });
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('compareComponents', () => {
  it('gives true, false or undefined per component', () => {
    expect(compareComponents(attempt({ canvas: null }), attempt({ webgl: 'webgl-B' }))).toEqual({
      canvas: undefined,
      webgl: false,
      audio: true,
      fonts: true,
      screen: true,
      timezone: true,
      language: true,
      platform: true,
    });
  });

  it('never calls two absent components equal', () => {
    const none = compareComponents(attempt(allAbsent), attempt(allAbsent));
    expect(Object.values(none).every((v) => v === undefined)).toBe(true);
    expect(scoreCandidate(attempt(allAbsent), attempt(allAbsent), context(false)).confidence).toBeNull();
  });
});

describe('helpers', () => {
  it('hasDeviceIdentity needs a high-entropy component', () => {
    expect(hasDeviceIdentity(attempt({}))).toBe(true);
    expect(hasDeviceIdentity(attempt(highAbsent))).toBe(false);
    expect(hasDeviceIdentity(attempt({ ...highAbsent, fonts: 'fonts-A' }))).toBe(true);
  });

  it('isStrongerScore orders by confidence, then score', () => {
    const certain = scoreCandidate(attempt({}), attempt({}), context(false));
    const medium = scoreCandidate(attempt({}), attempt(otherPlace), context(false));
    const possibleRich = scoreCandidate(attempt({}), attempt({ ...otherDevice, fp: 'fp-B', canvas: 'canvas-A' }), context(false));
    const possiblePoor = scoreCandidate(attempt({}), attempt({ ...otherDevice, fp: 'fp-B' }), context(false));
    expect(isStrongerScore(certain, medium)).toBe(true);
    expect(isStrongerScore(medium, certain)).toBe(false);
    expect(isStrongerScore(possibleRich, possiblePoor)).toBe(true);
    expect(isStrongerScore(possiblePoor, undefined)).toBe(true);
  });
});
