import type { FingerprintData } from '../../src/shared/fingerprint';
import { DAY_MS } from '../../src/shared/durations';

/**
 * The labelled population of the verdict-quality figure (P8): people with one to three
 * Discord accounts, each account verified once from a browser profile on a device at an
 * address, with the truth known (which accounts belong to one person, and how the alt was
 * made). Deterministic for a seed.
 *
 * True alts, made the ways people make them:
 *  - same-browser:   the same browser profile again (same fingerprint, same address, same
 *                    first-party storage);
 *  - fresh-profile:  a new profile of the same browser on the same device (same fingerprint,
 *                    storage lost);
 *  - private-window: a private window of the same browser (storage lost; Safari and Firefox
 *                    add noise to canvas and audio read-outs there, Chromium browsers do not);
 *  - second-browser: another browser on the same device (canvas, WebGL and audio differ,
 *                    screen, time zone, language, platform and hardware stay; the font list
 *                    stays on some machines);
 *  - other-device:   phone plus computer, both at home (same address, nothing device-level);
 *  - vpn:            the same device behind a VPN the check flags (Limited Access: the
 *                    product keeps no address or fingerprint for it).
 *
 * People who are NOT alts of each other but share a lot: households of 2–6 on one address,
 * whose phones are often the same model; dorm residents, hundreds behind a campus's two
 * addresses in one /24; phones on cellular behind carrier NAT addresses shared by
 * thousands; public Wi-Fi venues.
 *
 * Device configurations are drawn from a popularity distribution calibrated so that about
 * 60% of mobile and 35% of desktop fingerprints are shared with at least one other device,
 * the shares measured by adF (Bermejo-Agueda et al., "adF: a Novel System for Measuring
 * Web Fingerprinting through Ads", arXiv 2311.08769, 2023, https://arxiv.org/abs/2311.08769):
 * over 5.4 million ad impressions only ~40% of mobile and ~66% of desktop devices were
 * uniquely fingerprintable. `populationStats` reports the realised shares.
 *
 * Each account has a creation time, which its Discord id carries as a snowflake (the product
 * reads an account's age from it): see ACCOUNT_AGE_ASSUMPTIONS.
 */

export type Platform = 'mobile' | 'desktop';
export const ALT_KINDS = ['same-browser', 'fresh-profile', 'private-window', 'second-browser', 'other-device', 'vpn'] as const;
export type AltKind = (typeof ALT_KINDS)[number];
/** The alts made on the same device with the product able to see it (a VPN-flagged visit keeps no evidence). */
export const SAME_DEVICE_KINDS: readonly AltKind[] = ['same-browser', 'fresh-profile', 'private-window', 'second-browser'];
export type Venue = 'home' | 'campus' | 'cellular' | 'public-wifi' | 'vpn';

export const ADF_SOURCE =
  'adF, arXiv 2311.08769 (2023), 5.4M ad impressions: ~40% of mobile, ~66% of desktop devices uniquely fingerprintable — https://arxiv.org/abs/2311.08769';
export const SHARED_SHARE_TARGET: Record<Platform, number> = { mobile: 0.6, desktop: 0.35 };

/**
 * How old a Discord account is when it verifies. ASSUMPTIONS, stated because no measured
 * source was found (Discord publishes no account-age figures for server joiners):
 *  - `madeForIt`: the share of alts made for the purpose, created the day they verify or
 *    the day before (0–2 days before). The rest are spare accounts the person already had,
 *    aged like anyone's. Account-age gates are the most common alt defence of Discord
 *    moderation bots, which says alts are often fresh, but not how often.
 *  - `newToDiscord`: the share of first (legitimate) accounts that are new to Discord,
 *    created within the month before they verify (uniformly over 0–30 days, so about a
 *    quarter of them are under a week old). The rest were created 30 days to 8 years earlier.
 * 'base' is the assumption P8 reports; 'pessimistic' halves the fresh alts and triples the
 * newcomers, and the experiment (p8-proposal.ts) prints both.
 */
export const ACCOUNT_AGE_ASSUMPTIONS = {
  base: { madeForIt: 0.6, newToDiscord: 0.1 },
  pessimistic: { madeForIt: 0.3, newToDiscord: 0.3 },
} as const;
export type AccountAgeAssumption = keyof typeof ACCOUNT_AGE_ASSUMPTIONS;

/**
 * When accounts verify relative to each other. ASSUMPTIONS, stated because no measured source
 * was found (nobody publishes when a server's alts verify relative to their main account):
 *  - `sameSitting`: the share of alts that verify within the hour after the person's first
 *    account (one sitting: an alt made to join alongside the main, for a giveaway, a vote, a
 *    second seat in a game). Taken as half of the alts made for the purpose in the account-age
 *    assumption of the same name (the other half are made after the main was limited, muted or
 *    banned, and come later): base 0.6 / 2, pessimistic 0.3 / 2.
 *  - `householdTogether`: the share of household members (and campus residents) after the
 *    first who verify within the hour after an earlier one: someone shows their sibling or
 *    room-mate the server and they join at once. Legitimate joins that look like one sitting,
 *    against the rule; the pessimistic assumption doubles it.
 * The other accounts keep their times spread over the month. P8 itself generates no timing (no
 * rule of the product reads it); the experiment p8-proposal.ts measures rules with it under both.
 */
export const TIMING_ASSUMPTIONS = {
  base: { sameSitting: 0.3, householdTogether: 0.2 },
  pessimistic: { sameSitting: 0.15, householdTogether: 0.4 },
} as const;
export type TimingAssumption = keyof typeof TIMING_ASSUMPTIONS;
/** "Within the hour": the length of one sitting in the timing assumptions. */
export const SITTING_MS = 60 * 60 * 1000;

/** The population's time zero: attempts are made over the 29 days after it. */
export const POPULATION_START_MS = Date.UTC(2026, 9, 1);
/** Discord's epoch (2015-01-01): snowflakes count milliseconds from it. */
const DISCORD_EPOCH_MS = 1_420_070_400_000;

/** A snowflake created at `createdMs` (epoch ms); `sequence` (< 2^22) keeps ids distinct. */
export function snowflakeAt(createdMs: number, sequence: number): string {
  return ((BigInt(Math.floor(createdMs - DISCORD_EPOCH_MS)) << 22n) | BigInt(sequence & 0x3fffff)).toString();
}

export interface Device {
  id: number;
  platform: Platform;
  /** stock configuration key: devices with equal keys and locales show equal fingerprints */
  model: string;
  os: string;
  /** the browser the owner uses by default */
  browser: string;
  /** user changes (installed fonts, display zoom) that make the device's rendering its own */
  customised: boolean;
  /** whether the font probe sees the same list in every browser of the device */
  fontsAcrossBrowsers: boolean;
  locale: { timezone: string; language: string };
}

export interface BenchAccount {
  /** position in verification order (0 = first to verify) */
  index: number;
  discordId: string;
  username: string;
  personId: number;
  householdId: number;
  /** 'first' for a person's first account; how the alt was made otherwise */
  kind: 'first' | AltKind;
  deviceId: number;
  platform: Platform;
  browser: string;
  /** the browser profile's first-party random token (same profile = same token) */
  profileToken: string;
  privateWindow: boolean;
  venue: Venue;
  ip: string;
  vpn: boolean;
  fingerprint: FingerprintData;
  /** milliseconds after the population's start */
  atMs: number;
  /** when the Discord account was created, in milliseconds after the population's start (negative: before it) */
  createdMs: number;
}

export interface Population {
  seed: number;
  people: number;
  accounts: BenchAccount[];
  devices: Device[];
}

/** mulberry32: a small seeded generator, good enough for shaping data, never for secrets. */
export function createRng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const chance = (p: number) => next() < p;
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  /** index drawn with weights */
  const weighted = (weights: readonly number[]) => {
    const total = weights.reduce((a, b) => a + b, 0);
    let r = next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r < 0) return i;
    }
    return weights.length - 1;
  };
  return { next, int, chance, pick, weighted };
}

/** Zipf weights 1/k^s for k = 1..n: a few very popular items, a long tail. */
export function zipfWeights(n: number, s: number): number[] {
  return Array.from({ length: n }, (_, k) => 1 / (k + 1) ** s);
}

/** accounts verify over 29 days: every attempt stays inside a 30-day retention window */
const SPAN_MS = 29 * DAY_MS;

/**
 * The share of devices whose owner changed them enough to render uniquely, per platform:
 * calibrated (with the Zipf catalogues below) so the realised shared shares land on the
 * adF figures at 20k–60k members (p8-population.test.ts checks it).
 */
const CUSTOMISED: Record<Platform, number> = { mobile: 0.46, desktop: 0.47 };

const MOBILE_MODELS = Array.from({ length: 60 }, (_, i) => ({
  name: i % 3 === 0 ? `android-${i}` : `iphone-${i}`,
  vendor: i % 3 === 0 ? ('android' as const) : ('ios' as const),
  screen: `${360 + (i % 9) * 10}x${780 + (i % 7) * 20}x3`,
  hardware: `${4 + (i % 3) * 2}|${4 + (i % 4) * 2}`,
  gpu: i % 3 === 0 ? `Adreno ${600 + (i % 12) * 10}` : 'Apple GPU',
}));
const MOBILE_WEIGHTS = zipfWeights(MOBILE_MODELS.length, 1.05);
const DESKTOP_GPUS = Array.from({ length: 80 }, (_, i) => `ANGLE GPU ${i}`);
const DESKTOP_MODELS = Array.from({ length: 220 }, (_, i) => ({
  name: `pc-${i}`,
  os: i % 5 === 0 ? 'mac' : i % 23 === 0 ? 'linux' : 'windows',
  gpu: DESKTOP_GPUS[(i * 7) % DESKTOP_GPUS.length]!,
  screen: ['1920x1080x24', '2560x1440x24', '1366x768x24', '1536x864x24', '2880x1800x30', '1440x900x24'][i % 6]!,
  hardware: `${[4, 8, 12, 16][i % 4]}|${[8, 16, 32][i % 3]}`,
}));
const DESKTOP_WEIGHTS = zipfWeights(DESKTOP_MODELS.length, 1.0);
const BROWSERS: Record<string, { names: string[]; weights: number[] }> = {
  ios: { names: ['safari', 'chrome-ios'], weights: [85, 15] },
  android: { names: ['chrome', 'samsung', 'firefox'], weights: [75, 20, 5] },
  windows: { names: ['chrome', 'edge', 'firefox'], weights: [65, 20, 15] },
  mac: { names: ['safari', 'chrome', 'firefox'], weights: [50, 45, 5] },
  linux: { names: ['firefox', 'chrome'], weights: [50, 50] },
};
/** browsers whose private windows add noise to canvas and audio read-outs */
const NOISY_PRIVATE = new Set(['safari', 'firefox']);
const LOCALES = [
  { timezone: 'Europe/Berlin', language: 'de-DE' },
  ...Array.from({ length: 29 }, (_, i) => ({ timezone: `Zone/${i}`, language: `l${i}-XX` })),
];
/** half of the community lives in its main locale, the rest spread over 29 others */
const LOCALE_WEIGHTS = [29, ...zipfWeights(29, 0.8).map((w) => (w * 29) / zipfWeights(29, 0.8).reduce((a, b) => a + b, 0))];

/** iOS browsers are all WebKit: canvas, WebGL and audio do not change with the browser. */
function engineOf(device: Device, browser: string): string {
  if (device.os === 'ios') return 'webkit';
  return browser === 'edge' ? 'chrome' : browser;
}

/** What the collector reports for a browser on a device (noise: a private window's per-session noise key). */
export function fingerprintOf(device: Device, browser: string, noise: string | null): FingerprintData {
  const mobile = device.platform === 'mobile' ? MOBILE_MODELS.find((m) => m.name === device.model) : undefined;
  const desktop = device.platform === 'desktop' ? DESKTOP_MODELS.find((m) => m.name === device.model) : undefined;
  const engine = engineOf(device, browser);
  const own = device.customised ? `|own${device.id}` : '';
  const noisy = noise !== null && NOISY_PRIVATE.has(engine === 'webkit' ? 'safari' : engine) ? `|noise${noise}` : '';
  const gpu = mobile?.gpu ?? desktop!.gpu;
  const fontsBase =
    device.platform === 'mobile' ? `fonts-${device.os}-${device.os === 'ios' ? 'system' : device.model}` : `fonts-${device.os}-default`;
  return {
    canvas: `canvas|${engine}|${device.model}|${device.os}${own}${noisy}`,
    webgl: `${gpu}~${engine}-extensions`,
    audio: `audio|${engine}|${device.os}|${mobile?.vendor ?? desktop!.os}${noisy}`,
    screen: mobile?.screen ?? desktop!.screen,
    fonts: `${fontsBase}${own}${device.fontsAcrossBrowsers ? '' : `|${engine}`}`,
    timezone: device.locale.timezone,
    language: device.locale.language,
    platform:
      device.platform === 'mobile'
        ? device.os === 'ios'
          ? 'iPhone'
          : 'Linux armv8l'
        : device.os === 'mac'
          ? 'MacIntel'
          : device.os === 'linux'
            ? 'Linux x86_64'
            : 'Win32',
    hardware: mobile?.hardware ?? desktop!.hardware,
  };
}

interface Person {
  id: number;
  householdId: number;
  dorm: number | null;
  phone: Device;
  computer: Device | null;
  carrier: number;
}

export interface PopulationOptions {
  /** how many people (accounts come out ~1.2× this) */
  people: number;
  seed?: number;
  /** how old accounts are when they verify (ACCOUNT_AGE_ASSUMPTIONS; 'base' unless given) */
  accountAge?: AccountAgeAssumption;
  /** when accounts verify relative to each other (TIMING_ASSUMPTIONS); absent: every account's time spread over the month on its own (P8's population) */
  timing?: TimingAssumption;
}

/**
 * Builds the population. Shapes (per person unless said): 10% live in a dorm (campuses of
 * ~400 residents behind two addresses of one /24), the others in households of 1–6 (home
 * addresses ~1.4 households per /24); everyone has a phone, 65% a computer; a household
 * member's phone is the same model as the first member's in 40% of cases; 85% have one
 * account, 11% two, 4% three; 3% verify their only account through a flagged VPN.
 */
export function generatePopulation(options: PopulationOptions): Population {
  const seed = options.seed ?? 8;
  const rng = createRng(seed);
  const devices: Device[] = [];
  const people: Person[] = [];

  const newDevice = (platform: Platform, locale: Device['locale'], copyOf?: Device): Device => {
    const id = devices.length;
    let device: Device;
    if (copyOf) {
      device = { ...copyOf, id, customised: false, locale };
    } else if (platform === 'mobile') {
      const model = MOBILE_MODELS[rng.weighted(MOBILE_WEIGHTS)]!;
      const os = model.vendor;
      const browsers = BROWSERS[os]!;
      device = {
        id,
        platform,
        model: model.name,
        os,
        browser: browsers.names[rng.weighted(browsers.weights)]!,
        customised: rng.chance(CUSTOMISED.mobile),
        fontsAcrossBrowsers: true,
        locale,
      };
    } else {
      const model = DESKTOP_MODELS[rng.weighted(DESKTOP_WEIGHTS)]!;
      const browsers = BROWSERS[model.os]!;
      device = {
        id,
        platform,
        model: model.name,
        os: model.os,
        browser: browsers.names[rng.weighted(browsers.weights)]!,
        customised: rng.chance(CUSTOMISED.desktop),
        fontsAcrossBrowsers: rng.chance(0.5),
        locale,
      };
    }
    devices.push(device);
    return device;
  };

  // households and dorms
  const dormShare = 0.1;
  const campusSize = 400;
  const campuses = Math.max(1, Math.round((options.people * dormShare) / campusSize));
  let householdId = 0;
  while (people.length < options.people) {
    const dorm = rng.chance(dormShare) ? rng.int(campuses) : null;
    const size = dorm !== null ? 1 : 1 + rng.weighted([40, 25, 15, 10, 6, 4]);
    const locale = LOCALES[rng.weighted(LOCALE_WEIGHTS)]!;
    let firstPhone: Device | undefined;
    for (let k = 0; k < size && people.length < options.people; k++) {
      const phone = firstPhone && rng.chance(0.4) ? newDevice('mobile', locale, firstPhone) : newDevice('mobile', locale);
      firstPhone ??= phone;
      const computer = rng.chance(0.65) ? newDevice('desktop', locale) : null;
      people.push({ id: people.length, householdId, dorm, phone, computer, carrier: rng.int(3) });
    }
    householdId++;
  }

  // addresses: home addresses in /24 blocks shared by ~1.4 households, campus egress, carrier NAT, venues, VPN exits
  const homeBlocks = Math.max(1, Math.round(householdId / 1.4));
  const homeIp = new Map<number, string>();
  const blockFill = new Map<number, number>();
  const homeOf = (person: Person) => {
    let ip = homeIp.get(person.householdId);
    if (!ip) {
      const block = rng.int(homeBlocks);
      const host = (blockFill.get(block) ?? 0) + 1;
      blockFill.set(block, host);
      ip = `20.${Math.floor(block / 256) % 256}.${block % 256}.${host}`;
      homeIp.set(person.householdId, ip);
    }
    return ip;
  };
  const venueWeights = zipfWeights(150, 0.9);
  const contextFor = (person: Person, device: Device): { venue: Venue; ip: string } => {
    if (person.dorm !== null) return { venue: 'campus', ip: `30.${person.dorm % 256}.${Math.floor(person.dorm / 256)}.${1 + rng.int(2)}` };
    const r = rng.next();
    if (device.platform === 'mobile') {
      if (r < 0.6) return { venue: 'home', ip: homeOf(person) };
      if (r < 0.9) return { venue: 'cellular', ip: `100.64.${person.carrier}.${1 + rng.int(2)}` };
    } else if (r < 0.9) {
      return { venue: 'home', ip: homeOf(person) };
    }
    return { venue: 'public-wifi', ip: `40.${rng.weighted(venueWeights)}.0.1` };
  };
  const vpnExit = () => ({ venue: 'vpn' as const, ip: `50.${rng.int(64)}.${rng.int(256)}.${1 + rng.int(250)}` });

  const accounts: Omit<BenchAccount, 'index' | 'discordId' | 'username' | 'createdMs'>[] = [];
  let profiles = 0;
  const token = () => `profile-${seed}-${profiles++}`;
  for (const person of people) {
    const primary = person.computer && rng.chance(0.45) ? person.computer : person.phone;
    const firstVpn = rng.chance(0.03);
    const first = {
      personId: person.id,
      householdId: person.dorm !== null ? -1 - person.dorm : person.householdId,
      kind: 'first' as const,
      deviceId: primary.id,
      platform: primary.platform,
      browser: primary.browser,
      profileToken: token(),
      privateWindow: false,
      ...(firstVpn ? vpnExit() : contextFor(person, primary)),
      vpn: firstVpn,
      fingerprint: fingerprintOf(primary, primary.browser, null),
      atMs: rng.int(SPAN_MS),
    };
    accounts.push(first);
    const extra = rng.weighted([85, 11, 4]);
    for (let n = 0; n < extra; n++) {
      let kind = ALT_KINDS[rng.weighted([30, 13, 12, 15, 20, 10])]!;
      const browsers = BROWSERS[primary.os]!;
      if (kind === 'second-browser' && browsers.names.length < 2) kind = 'fresh-profile';
      const at = first.atMs + rng.int(SPAN_MS - first.atMs);
      const sameContext = () => (rng.chance(0.8) ? { venue: first.venue, ip: first.ip } : contextFor(person, primary));
      const base = { personId: person.id, householdId: first.householdId, kind, atMs: at, privateWindow: false, vpn: false };
      if (kind === 'same-browser') {
        accounts.push({
          ...base,
          deviceId: primary.id,
          platform: primary.platform,
          browser: first.browser,
          profileToken: first.profileToken,
          ...(first.vpn ? vpnExit() : sameContext()),
          vpn: first.vpn,
          fingerprint: first.fingerprint,
        });
      } else if (kind === 'fresh-profile' || kind === 'private-window') {
        const privateWindow = kind === 'private-window';
        const profileToken = token();
        accounts.push({
          ...base,
          deviceId: primary.id,
          platform: primary.platform,
          browser: first.browser,
          profileToken,
          privateWindow,
          ...(first.vpn ? vpnExit() : sameContext()),
          vpn: first.vpn,
          fingerprint: fingerprintOf(primary, first.browser, privateWindow ? profileToken : null),
        });
      } else if (kind === 'second-browser') {
        const others = browsers.names.filter((b) => b !== primary.browser);
        const browser = rng.pick(others);
        accounts.push({
          ...base,
          deviceId: primary.id,
          platform: primary.platform,
          browser,
          profileToken: token(),
          ...(first.vpn ? vpnExit() : sameContext()),
          vpn: first.vpn,
          fingerprint: fingerprintOf(primary, browser, null),
        });
      } else if (kind === 'other-device') {
        const other = primary === person.phone ? (person.computer ?? newDevice('desktop', primary.locale)) : person.phone;
        person.computer ??= other.platform === 'desktop' ? other : null;
        const context =
          person.dorm === null && rng.chance(0.85) ? { venue: 'home' as const, ip: homeOf(person) } : contextFor(person, other);
        accounts.push({
          ...base,
          deviceId: other.id,
          platform: other.platform,
          browser: other.browser,
          profileToken: token(),
          ...context,
          fingerprint: fingerprintOf(other, other.browser, null),
        });
      } else {
        accounts.push({
          ...base,
          deviceId: primary.id,
          platform: primary.platform,
          browser: first.browser,
          profileToken: first.profileToken,
          ...vpnExit(),
          vpn: true,
          fingerprint: first.fingerprint,
        });
      }
    }
  }

  if (options.timing) sitTogether(accounts, createRng(seed * 104_729 + 3), TIMING_ASSUMPTIONS[options.timing]);
  accounts.sort((a, b) => a.atMs - b.atMs || a.personId - b.personId);
  // account ages come from a generator of their own, so the rest of the population is the same under every assumption
  const ages = createRng(seed * 7919 + 1);
  const age = ACCOUNT_AGE_ASSUMPTIONS[options.accountAge ?? 'base'];
  const createdBefore = (kind: BenchAccount['kind']) => {
    if (kind !== 'first' && ages.chance(age.madeForIt)) return ages.next() * 2 * DAY_MS;
    if (kind === 'first' && ages.chance(age.newToDiscord)) return ages.next() * 30 * DAY_MS;
    return 30 * DAY_MS + ages.next() * (8 * 365 - 30) * DAY_MS;
  };
  return {
    seed,
    people: people.length,
    devices,
    accounts: accounts.map((a, index) => {
      const createdMs = a.atMs - createdBefore(a.kind);
      return {
        ...a,
        index,
        createdMs,
        discordId: snowflakeAt(POPULATION_START_MS + createdMs, index),
        username: `p8-${a.personId}-${index}`,
      };
    }),
  };
}

/**
 * Moves verification times by the timing assumption (a generator of its own, so devices,
 * addresses and alt kinds are the same under every assumption): a household member or campus
 * resident after the first verifies, with all of their accounts, within the hour after one
 * of the members who verified before; then an alt verifies within the hour after its person's first
 * account (`sameSitting`). Times stay inside the month.
 */
function sitTogether(
  accounts: { personId: number; householdId: number; kind: BenchAccount['kind']; atMs: number }[],
  rng: ReturnType<typeof createRng>,
  timing: (typeof TIMING_ASSUMPTIONS)[TimingAssumption],
): void {
  const within = () => 60_000 + rng.int(SITTING_MS - 60_000);
  const clamp = (ms: number) => Math.min(Math.max(ms, 0), SPAN_MS - 1);
  const firstOf = new Map<number, { atMs: number }>();
  for (const a of accounts) if (a.kind === 'first') firstOf.set(a.personId, a);
  const byHousehold = new Map<number, number[]>();
  for (const a of accounts) if (a.kind === 'first') byHousehold.set(a.householdId, [...(byHousehold.get(a.householdId) ?? []), a.personId]);
  const shift = new Map<number, number>();
  for (const people of byHousehold.values()) {
    const ordered = [...people].sort((a, b) => firstOf.get(a)!.atMs - firstOf.get(b)!.atMs);
    const joined: number[] = [];
    for (const p of ordered) {
      const own = firstOf.get(p)!.atMs;
      // after one of the members who verified before (a campus is hundreds: one room-mate, not a wave)
      if (joined.length > 0 && rng.chance(timing.householdTogether)) shift.set(p, clamp(rng.pick(joined) + within()) - own);
      joined.push(own + (shift.get(p) ?? 0));
    }
  }
  for (const a of accounts) a.atMs = clamp(a.atMs + (shift.get(a.personId) ?? 0));
  for (const a of accounts)
    if (a.kind !== 'first' && rng.chance(timing.sameSitting)) a.atMs = clamp(firstOf.get(a.personId)!.atMs + within());
}

/** How two accounts of one person relate, from their sessions alone (null: different people). */
export function pairKind(a: BenchAccount, b: BenchAccount): AltKind | null {
  if (a.personId !== b.personId) return null;
  if (a.vpn || b.vpn) return 'vpn';
  if (a.profileToken === b.profileToken) return 'same-browser';
  if (a.deviceId !== b.deviceId) return 'other-device';
  if (a.browser !== b.browser) return 'second-browser';
  return a.privateWindow || b.privateWindow ? 'private-window' : 'fresh-profile';
}

export interface TruePair {
  a: BenchAccount;
  b: BenchAccount;
  kind: AltKind;
}

/** Every pair of accounts that belong to one person, with how they relate. */
export function truePairs(population: Population): TruePair[] {
  const byPerson = new Map<number, BenchAccount[]>();
  for (const account of population.accounts) byPerson.set(account.personId, [...(byPerson.get(account.personId) ?? []), account]);
  const pairs: TruePair[] = [];
  for (const group of byPerson.values()) {
    for (let i = 0; i < group.length; i++)
      for (let j = i + 1; j < group.length; j++) pairs.push({ a: group[i]!, b: group[j]!, kind: pairKind(group[i]!, group[j]!)! });
  }
  return pairs;
}

const fingerprintKey = (fp: FingerprintData) => Object.values(fp).join('|');

export interface PopulationStats {
  people: number;
  accounts: number;
  /** per platform: distinct devices, and the share whose default-browser fingerprint another device also shows */
  shared: Record<Platform, { devices: number; share: number }>;
  pairsByKind: Record<AltKind, number>;
  venues: Record<Venue, number>;
  /** the most accounts on one address, and how many addresses hold more than 100 */
  busiestAddress: number;
  crowdedAddresses: number;
}

export function populationStats(population: Population): PopulationStats {
  const used = new Set(population.accounts.map((a) => a.deviceId));
  const shared = {} as PopulationStats['shared'];
  for (const platform of ['mobile', 'desktop'] as const) {
    const devices = population.devices.filter((d) => d.platform === platform && used.has(d.id));
    const counts = new Map<string, number>();
    const keys = devices.map((d) => fingerprintKey(fingerprintOf(d, d.browser, null)));
    for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
    shared[platform] = {
      devices: devices.length,
      share: devices.length ? keys.filter((k) => counts.get(k)! > 1).length / devices.length : 0,
    };
  }
  const pairsByKind = Object.fromEntries(ALT_KINDS.map((k) => [k, 0])) as Record<AltKind, number>;
  for (const pair of truePairs(population)) pairsByKind[pair.kind]++;
  const venues = { home: 0, campus: 0, cellular: 0, 'public-wifi': 0, vpn: 0 } as Record<Venue, number>;
  const perIp = new Map<string, number>();
  for (const account of population.accounts) {
    venues[account.venue]++;
    perIp.set(account.ip, (perIp.get(account.ip) ?? 0) + 1);
  }
  return {
    people: population.people,
    accounts: population.accounts.length,
    shared,
    pairsByKind,
    venues,
    busiestAddress: Math.max(...perIp.values()),
    crowdedAddresses: [...perIp.values()].filter((n) => n > 100).length,
  };
}
