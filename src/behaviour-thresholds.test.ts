import fs from 'node:fs';
import path from 'node:path';
import { DEFER_AFTER_MS } from './discord/bot/interaction-dispatcher';
import { VERIFY_DEFER_AFTER_MS } from './discord/bot/verify-button';
import { ALT_RESCORE_BATCHES_PER_RUN, DISCORD_PAUSE_CHECK_MINUTES } from './jobs/jobs';
import { DISCORD_PAUSE_LIMIT_MS, DISCORD_PAUSE_MS } from './modules/raid/discord-pause';
import { DEFAULT_CANDIDATE_LIMIT } from './modules/alts/alt-candidates.repository';
import { RESCORE_ATTEMPTS_PER_MEMBER, RESCORE_BATCH_SIZE } from './modules/alts/alt-rescoring';
import { ANONYMITY_COUNT_CAP, RARITY } from './modules/alts/alt-scoring';
import { NETWORK_PREFIX_BITS } from './modules/network/ip-address';
import { CONSENT_TOKEN_TTL_MS } from './modules/verification/verification.service';
import { DEFAULT_BCRYPT_COST, PASSWORD_MAX_BYTES } from './modules/staff/password';
import { DEFAULT_LOGIN_THROTTLE } from './modules/staff/login-throttle';
import { defaultHashThreads } from './modules/staff/password-pool';
import { BUSY_RETRY_SECONDS } from './modules/staff/bounded-queue';
import { GUILD_MEMBER_CACHE_MAX_AGE_MS } from './discord/guild-member-cache';
import { POOL_CHECKOUT_WAIT_MS } from './db/client';
import { APPEAL_MESSAGE_MAX, APPEAL_REASON_MAX } from './shared/appeals';
import { APPEAL_QUEUE_LIMIT } from './modules/appeals/appeals.service';
import { APPEALS_LISTED } from './discord/commands/appeals.command';
import { HOUR_MS, MINUTE_MS, SESSION_MAX_AGE_DAYS } from './shared/durations';
import { DEFAULT_RETENTION_DAYS, MINIMUM_AGE, MINIMUM_AGE_EU } from './shared/policy';
import { PASSWORD_MIN_LENGTH } from './shared/staff-account';
import { DISMISS_REASON_MAX } from './shared/text-limits';
import { STAFF_IDLE_TIMEOUT_MS } from './http/middleware/staff-session';
import { ADDRESS_BUDGET, CLASS_SIZE, NEWCOMER_BUDGET, SESSION_BUDGET, VISITOR_FLOW_REQUESTS } from './http/middleware/visitor-limit';
import { APPEAL_BUDGET } from './http/middleware/appeal-limit';
import { DATABASE_BUSY_RETRY_AFTER_SECONDS } from './http/middleware/errors';
import { PENDING_RESULT_AFTER_EXCHANGE_MS } from './http/routes/pending-sign-ins';
import { SIGN_IN_EXCHANGE_BUDGET_MS } from './modules/verification/sign-in';
import { OAUTH_STATE_TTL_MS } from './modules/verification/verification.service';
import { BROWSER_TOKEN_MAX_AGE_MS, generateBrowserToken } from './modules/browser-token/browser-token';
import { FINGERPRINT_HASH_LENGTH, FINGERPRINT_LIMITS } from './shared/fingerprint';
import { DAY_MS } from './shared/durations';

/**
 * docs/behaviour.md is the one prose description of the product's rules: every figure it
 * states is tied here to the constant the code uses, so the two cannot drift apart.
 *
 * A `tied` entry is a phrase of the doc holding one figure (digits, or a number word) and the
 * constant it must equal, in the doc's unit. A `not a threshold` entry is a phrase whose figures
 * are something else (a measured bench result, an example, an HTTP status, a step number, the
 * "1" of "1 every 10 minutes", the "1–" of a text that may not be empty, an address, a value a field
 * is set to): it
 * says which, and no constant is compared. In the sections of COVERED_SECTIONS every figure
 * written in digits must fall inside a phrase listed here, so a new number in them fails until
 * it is tied (or said not to be a threshold). Digits that are part of a name (P8, IPv4, SHA-256,
 * 1M) are names, not figures.
 */

/** `tied` is the phrase's one figure, or each figure in digits in the order written. */
type Tied = { section: string; text: string; tied: number | readonly number[] };
type NotThreshold = { section: string; text: string; notThreshold: 'measured' | 'example' | 'HTTP status' | 'step number' | 'a rate\'s unit' | 'not empty' | 'address' | 'a field value' };
type Figure = Tied | NotThreshold;

const ALT = 'Alt detection';
const LIMITS = 'Limits and constants';
const SESSIONS = 'Staff, roles and sessions';
const APPEALS = 'Appeals';
const PERSONAL_DATA = 'Personal data and retention';
const LOCKDOWN = 'Lockdown and held members';
const VPN = 'VPN and proxy detection';
const BUTTON = 'The Discord button';

/** Sections where every figure in digits must be listed below. */
const COVERED_SECTIONS = [ALT, LIMITS, APPEALS, SESSIONS, PERSONAL_DATA, LOCKDOWN, VPN, BUTTON, 'Outcomes of a verification'];

/**
 * A numeric constant read from its source file: for the web app's (the server's tests do not load
 * the web's modules) and a worker thread's (its module starts the thread's work when loaded).
 */
function sourceConstant(file: string, name: string): number {
  const source = fs.readFileSync(path.join(__dirname, '..', file), 'utf8');
  const match = new RegExp(`(?:export )?const ${name} = ([\\d_.]+);`).exec(source);
  if (!match) throw new Error(`${file} has no numeric ${name}`);
  return Number(match[1]!.replace(/_/g, ''));
}

const FLOW = VISITOR_FLOW_REQUESTS.length;
const { pair, client, global, account } = DEFAULT_LOGIN_THROTTLE;
const browserToken = generateBrowserToken();

const FIGURES: Figure[] = [
  // Alt detection: the candidate lookup
  { section: ALT, text: 'at most 50 candidates', tied: DEFAULT_CANDIDATE_LIMIT },
  { section: ALT, text: 'counted among the newest 64 records', tied: ANONYMITY_COUNT_CAP },
  { section: ALT, text: '(so "64"', tied: ANONYMITY_COUNT_CAP },
  { section: ALT, text: 'means "64 or more")', tied: ANONYMITY_COUNT_CAP },
  { section: ALT, text: 'how many members the server holds (counted up to 1,000)', tied: RARITY.membersToJudgeRarity },
  { section: ALT, text: 'a *rare* high-entropy component (at most one member besides the candidate', tied: RARITY.rareComponentOthers },
  // the tiers
  { section: ALT, text: 'while other members carried the token on at most 3 networks', tied: RARITY.browserTokenNetworks },
  { section: ALT, text: 'or three of canvas, WebGL, audio and fonts equal', tied: RARITY.browserSameDeviceComponents },
  { section: ALT, text: 'the same fingerprint no other member shows', tied: RARITY.certainFingerprintOthers },
  { section: ALT, text: 'a device component at most one other member shows', tied: RARITY.rareComponentOthers },
  { section: ALT, text: 'with at most 2 others showing it and a rare component', tied: RARITY.fingerprintElsewhereOthers },
  { section: ALT, text: 'another component shown by at least 10 others', tied: RARITY.commonComponentOthers },
  { section: ALT, text: 'with at most 2 others showing both there', tied: RARITY.sameAddressFingerprintOthers },
  { section: ALT, text: 'on an uncrowded address (at most 10 others)', tied: RARITY.crowdedAddress },
  { section: ALT, text: '(/24 for IPv4', tied: NETWORK_PREFIX_BITS.ipv4 },
  { section: ALT, text: '/64 for IPv6)', tied: NETWORK_PREFIX_BITS.ipv6 },
  { section: ALT, text: 'the last 3,000 of 29,808 accounts', notThreshold: 'measured' },
  { section: ALT, text: 'the same fingerprint elsewhere 24 / 3 (88.9%', notThreshold: 'measured' },
  { section: ALT, text: 'the same address and fingerprint 201 / 297', notThreshold: 'measured' },
  { section: ALT, text: 'the same machine settings 22 / 27', notThreshold: 'measured' },
  { section: ALT, text: 'a partial\nmatch 73 / 751', notThreshold: 'measured' },
  { section: ALT, text: 'a rare component elsewhere 9 / 10', notThreshold: 'measured' },
  { section: ALT, text: 'The medium rule that stays: 109 / 0', notThreshold: 'measured' },
  // the browser token and rarity
  { section: ALT, text: '(see the\n  visitor flow, step 2)', notThreshold: 'step number' },
  { section: ALT, text: 'carried on more than 3 networks stops counting', tied: RARITY.browserTokenNetworks },
  { section: ALT, text: 'A component is *rare* when at most one other member shows it', tied: RARITY.rareComponentOthers },
  { section: ALT, text: 'on a server of 30,', notThreshold: 'example' },
  { section: ALT, text: 'until the server holds **1,000 members**', tied: RARITY.membersToJudgeRarity },
  { section: ALT, text: 'shown by 1 member in 26, the tenth by 1 in 192, the fiftieth by 1 in 621', notThreshold: 'measured' },
  { section: ALT, text: 'On a server of 100 even', notThreshold: 'example' },
  { section: ALT, text: 'like; with 1,000 members', tied: RARITY.membersToJudgeRarity },
  // the account's age
  { section: ALT, text: 'created at\n  most 7 days before it verified', tied: RARITY.youngAccountDays },
  { section: ALT, text: '(60% of\n  alts made in the two days before they verify, 10% of members', notThreshold: 'measured' },
  { section: ALT, text: 'was right 82% of the time in the links it added to the other rules (56 alts, 12\n  strangers, all 12', notThreshold: 'measured' },
  { section: ALT, text: '9 another member', notThreshold: 'measured' },
  { section: ALT, text: '3 a member new to Discord); under a pessimistic assumption (30% and 30%) 65%', notThreshold: 'measured' },
  { section: ALT, text: 'finds\n55.5% of same-device alts', notThreshold: 'measured' },
  { section: ALT, text: 'the bound with no wrong link is 69.6%', notThreshold: 'measured' },
  // dismissing and re-scoring
  { section: ALT, text: 'optional `reason` (at most 500\ncharacters)', tied: DISMISS_REASON_MAX },
  { section: ALT, text: 'is refused (409)', notThreshold: 'HTTP status' },
  { section: ALT, text: 'is 404;', notThreshold: 'HTTP status' },
  { section: ALT, text: '"This device profile is shared by 214 other members"', notThreshold: 'example' },
  { section: ALT, text: '"same device model as 214 other members on 180 networks (weak, not counted)"', notThreshold: 'example' },
  { section: ALT, text: 'the newest three\nattempts of each member', tied: RESCORE_ATTEMPTS_PER_MEMBER },
  { section: ALT, text: '200 at a time', tied: RESCORE_BATCH_SIZE },
  { section: ALT, text: 'at most 50 batches per run', tied: ALT_RESCORE_BATCHES_PER_RUN },

  // Appeals
  { section: APPEALS, text: 'the verdict identifies the member for 7 days', tied: SESSION_MAX_AGE_DAYS },
  { section: APPEALS, text: 'plain text, trimmed, 1 to', notThreshold: 'not empty' },
  { section: APPEALS, text: 'to 1,000 characters, nothing', tied: APPEAL_MESSAGE_MAX },
  { section: APPEALS, text: '"I <3 this" is text', notThreshold: 'example' },
  { section: APPEALS, text: 'at most 3 tries in a row per member', tied: APPEAL_BUDGET.capacity },
  { section: APPEALS, text: 'then one every 10', tied: 1 / APPEAL_BUDGET.refillPerSecond / 60 },
  { section: APPEALS, text: 'needs a reason (plain text, 1 to', notThreshold: 'not empty' },
  { section: APPEALS, text: 'to 500 characters) that', tied: APPEAL_REASON_MAX },
  { section: APPEALS, text: 'already decided answers 409', notThreshold: 'HTTP status' },
  { section: APPEALS, text: '`GET /api/admin/appeals?status=decided`, at most 100)', tied: APPEAL_QUEUE_LIMIT },
  { section: APPEALS, text: '(at most 10 named, the rest counted)', tied: APPEALS_LISTED },

  // Personal data and retention
  { section: PERSONAL_DATA, text: 'prefix (/24 or /64)', tied: [NETWORK_PREFIX_BITS.ipv4, NETWORK_PREFIX_BITS.ipv6] },
  { section: PERSONAL_DATA, text: '(default 30,', tied: DEFAULT_RETENTION_DAYS },
  { section: PERSONAL_DATA, text: 'about 1.7 s (one `VACUUM ANALYZE` of the whole database held every\n  statement for 6.8-8.0 s)', notThreshold: 'measured' },

  // Lockdown and held members
  { section: LOCKDOWN, text: 'about 1.7 µs per attempt in\nit on PGlite in process (a 2,000-attempt window: 4.9 ms; it was 13.0 ms with the join)', notThreshold: 'measured' },
  { section: LOCKDOWN, text: 'every attempt of 24 hours', tied: DAY_MS / HOUR_MS },
  { section: LOCKDOWN, text: '(a 144th of it for ten-minute windows)', notThreshold: 'example' },
  { section: LOCKDOWN, text: '(34,000 on a server of a million', notThreshold: 'measured' },
  { section: LOCKDOWN, text: 'about 9 ms of each verification', notThreshold: 'measured' },
  { section: LOCKDOWN, text: '\n1. clears the hold', notThreshold: 'step number' },
  { section: LOCKDOWN, text: '\n2. gives every released member', notThreshold: 'step number' },
  { section: LOCKDOWN, text: '\n3. leaves the others', notThreshold: 'step number' },
  { section: LOCKDOWN, text: '\n4. posts one line', notThreshold: 'step number' },
  { section: LOCKDOWN, text: '23 h 45 min ahead', tied: [Math.floor(DISCORD_PAUSE_MS / HOUR_MS), (DISCORD_PAUSE_MS % HOUR_MS) / MINUTE_MS] },
  { section: LOCKDOWN, text: 'Discord refuses more than 24 hours', tied: DISCORD_PAUSE_LIMIT_MS / HOUR_MS },
  { section: LOCKDOWN, text: 'A job every 15 minutes', tied: DISCORD_PAUSE_CHECK_MINUTES },
  { section: LOCKDOWN, text: '`verified` 1 when', notThreshold: 'a field value' },
  { section: LOCKDOWN, text: '`not_alt` 1', notThreshold: 'a field value' },
  { section: LOCKDOWN, text: 'no record: 0 and 0', notThreshold: 'a field value' },

  // VPN and proxy detection
  { section: VPN, text: 'answered with HTTP 200 counts as a failure', notThreshold: 'HTTP status' },

  // The Discord button
  { section: BUTTON, text: '\n1. no record', notThreshold: 'step number' },
  { section: BUTTON, text: '\n2. rules not confirmed', notThreshold: 'step number' },
  { section: BUTTON, text: '\n3. a certain alt (the member\'s standing', notThreshold: 'step number' },
  { section: BUTTON, text: '\n4. Limited Access → only', notThreshold: 'step number' },
  { section: BUTTON, text: '\n5. otherwise → the Verified role', notThreshold: 'step number' },
  { section: BUTTON, text: '\n1. staff set the manual status `certain_alt`', notThreshold: 'step number' },
  { section: BUTTON, text: '\n2. staff set the manual status `suspected_alt`', notThreshold: 'step number' },
  { section: BUTTON, text: '\n3. status Limited Access → limited', notThreshold: 'step number' },
  { section: BUTTON, text: '\n4. rules confirmed → verified', notThreshold: 'step number' },
  { section: BUTTON, text: '\n5. otherwise → pending', notThreshold: 'step number' },
  { section: BUTTON, text: 'when the reply is not ready 0.5 s', tied: VERIFY_DEFER_AFTER_MS / 1000 },
  { section: BUTTON, text: 'still running 1.5 s after Discord created it', tied: DEFER_AFTER_MS / 1000 },

  // Limits and constants
  { section: LIMITS, text: '| fingerprint hash | 32 hex characters', tied: FINGERPRINT_HASH_LENGTH },
  { section: LIMITS, text: 'the first 32 of SHA-256', tied: FINGERPRINT_HASH_LENGTH },
  { section: LIMITS, text: 'WebGL extension list cut to 100 characters', tied: FINGERPRINT_LIMITS.webglExtensions },
  { section: LIMITS, text: 'audio sample to 50,', tied: FINGERPRINT_LIMITS.audioSample },
  { section: LIMITS, text: 'user agent to 100;', tied: FINGERPRINT_LIMITS.userAgent },
  { section: LIMITS, text: '13 fonts probed', tied: FINGERPRINT_LIMITS.fontsProbed },
  { section: LIMITS, text: '| browser token | 32 random bytes', tied: Buffer.from(browserToken, 'base64url').length },
  { section: LIMITS, text: '(43 base64url characters)', tied: browserToken.length },
  { section: LIMITS, text: 'cookie `gk_browser` for one year', tied: BROWSER_TOKEN_MAX_AGE_MS / (365 * DAY_MS) },
  { section: LIMITS, text: '| redirect after creating a staff account | 1.5 seconds |', tied: sourceConstant('web/src/features/staff/pages/create-staff-page.tsx', 'RETURN_DELAY_MS') / 1000 },
  { section: LIMITS, text: '| appeal message | 1–', notThreshold: 'not empty' },
  { section: LIMITS, text: '| appeal rejection reason | 1–', notThreshold: 'not empty' },
  { section: LIMITS, text: '| appeal rate limit | 3 tries in a row', tied: APPEAL_BUDGET.capacity },
  { section: LIMITS, text: 'then 1 every', notThreshold: 'a rate\'s unit' },
  { section: LIMITS, text: 'every 10 minutes |', tied: 1 / APPEAL_BUDGET.refillPerSecond / 60 },
  { section: LIMITS, text: '| visitor routes, per address | 300 requests', tied: ADDRESS_BUDGET.capacity },
  { section: LIMITS, text: '× 5 limited requests', tied: FLOW },
  { section: LIMITS, text: '× 1.5)', tied: ADDRESS_BUDGET.capacity / (CLASS_SIZE * FLOW) },
  { section: LIMITS, text: '), refilled in 5 minutes', tied: ADDRESS_BUDGET.capacity / ADDRESS_BUDGET.refillPerSecond / 60 },
  { section: LIMITS, text: '(1 a second)', tied: ADDRESS_BUDGET.refillPerSecond },
  { section: LIMITS, text: '| visitor routes, per browser session | 15 requests', tied: SESSION_BUDGET.capacity },
  { section: LIMITS, text: '(3 flows)', tied: SESSION_BUDGET.capacity / FLOW },
  { section: LIMITS, text: 'then 1 flow', tied: (SESSION_BUDGET.refillPerSecond * 60) / FLOW },
  { section: LIMITS, text: '(5) a minute', tied: SESSION_BUDGET.refillPerSecond * 60 },
  { section: LIMITS, text: 'requests, refilled in 5 minutes', tied: NEWCOMER_BUDGET.capacity / NEWCOMER_BUDGET.refillPerSecond / 60 },
  { section: LIMITS, text: '(1 every', notThreshold: 'a rate\'s unit' },
  { section: LIMITS, text: 'every 7.5 s)', tied: 1 / NEWCOMER_BUDGET.refillPerSecond },
  { section: LIMITS, text: 'in the database 10 minutes', tied: OAUTH_STATE_TTL_MS / MINUTE_MS },
  { section: LIMITS, text: 'in the process 2 minutes after the callback', tied: (SIGN_IN_EXCHANGE_BUDGET_MS + PENDING_RESULT_AFTER_EXCHANGE_MS) / MINUTE_MS },
  { section: LIMITS, text: 'then 503 with', notThreshold: 'HTTP status' },
  { section: LIMITS, text: '`Retry-After: 2`', tied: DATABASE_BUSY_RETRY_AFTER_SECONDS },
  { section: LIMITS, text: '| retention default | 30 days |', tied: DEFAULT_RETENTION_DAYS },
  { section: LIMITS, text: '| consent token | single use, 10 minutes |', tied: CONSENT_TOKEN_TTL_MS / MINUTE_MS },
  { section: LIMITS, text: '| staff password | 8–', tied: PASSWORD_MIN_LENGTH },
  { section: LIMITS, text: '–72 bytes', tied: PASSWORD_MAX_BYTES },
  { section: LIMITS, text: 'the server enforces 8)', tied: PASSWORD_MIN_LENGTH },
  { section: LIMITS, text: '| alt candidates per attempt | 50 |', tied: DEFAULT_CANDIDATE_LIMIT },
  { section: LIMITS, text: '(the new-server prior) | 1,000 |', tied: RARITY.membersToJudgeRarity },
  { section: LIMITS, text: 'created at most 7 days before it verifies', tied: RARITY.youngAccountDays },
  { section: LIMITS, text: 'stops counting when other members carried it on more than 3 networks', tied: RARITY.browserTokenNetworks },
  { section: LIMITS, text: 'relied on for | 15 minutes |', tied: GUILD_MEMBER_CACHE_MAX_AGE_MS / MINUTE_MS },
  { section: LIMITS, text: '| minimum age of a visitor | 13', tied: MINIMUM_AGE },
  { section: LIMITS, text: '(16 in the EU)', tied: MINIMUM_AGE_EU },
  { section: LIMITS, text: '–1,000 characters, plain text; one open appeal', tied: APPEAL_MESSAGE_MAX },
  { section: LIMITS, text: '–500 characters, plain text |', tied: APPEAL_REASON_MAX },
  { section: LIMITS, text: '| visitor routes, per address without a session | 40 requests', tied: CLASS_SIZE },
  { section: LIMITS, text: '(40 visitors ×', tied: CLASS_SIZE },
  { section: LIMITS, text: '| 15 s, first come', tied: POOL_CHECKOUT_WAIT_MS / 1000 },
  { section: LIMITS, text: '| appeal sign-in lifetime | 7 days', tied: SESSION_MAX_AGE_DAYS },

  // Staff, roles and sessions
  { section: SESSIONS, text: 'Idle timeout 12 hours', tied: STAFF_IDLE_TIMEOUT_MS / HOUR_MS },
  { section: SESSIONS, text: 'absolute 7 days', tied: SESSION_MAX_AGE_DAYS },
  { section: SESSIONS, text: 'refused (400', notThreshold: 'HTTP status' },
  { section: SESSIONS, text: 'bcrypt, cost 12', tied: DEFAULT_BCRYPT_COST },
  { section: SESSIONS, text: '8 to 72 bytes everywhere', tied: [PASSWORD_MIN_LENGTH, PASSWORD_MAX_BYTES] },
  { section: SESSIONS, text: 'refuse with 429', notThreshold: 'HTTP status' },
  { section: SESSIONS, text: "one address: 5 attempts per 15 minutes, then 15 minutes' block", tied: [pair.limit, pair.windowMs / MINUTE_MS, pair.blockMs / MINUTE_MS] },
  { section: SESSIONS, text: 'for this username from your address. Try again in 15 minutes.', tied: pair.blockMs / MINUTE_MS },
  { section: SESSIONS, text: "(a password spray): 20 per 15 minutes, then 15 minutes' block", tied: [client.limit, client.windowMs / MINUTE_MS, client.blockMs / MINUTE_MS] },
  { section: SESSIONS, text: "('Too many failed sign-ins from your address. Try again in 15 minutes.')", tied: client.blockMs / MINUTE_MS },
  { section: SESSIONS, text: "every address together: 100 failures per 5 minutes, then 5 minutes' block", tied: [global.limit, global.windowMs / MINUTE_MS, global.blockMs / MINUTE_MS] },
  { section: SESSIONS, text: 'can still sign in. Try again in 5 minutes.', tied: global.blockMs / MINUTE_MS },
  { section: SESSIONS, text: 'in the last 30 days (a known client)', tied: DEFAULT_LOGIN_THROTTLE.knownClientMs / DAY_MS },
  { section: SESSIONS, text: '(over\n  50 attempts per 15 minutes from anywhere)', tied: [account.limit, account.windowMs / MINUTE_MS] },
  { section: SESSIONS, text: 'after a fixed 3 s wait', tied: DEFAULT_LOGIN_THROTTLE.slowDownMs / 1000 },
  { section: SESSIONS, text: 'one, at most 4,', tied: defaultHashThreads(64, 1) },
  { section: SESSIONS, text: 'at least 1 each: 1 on a 2-CPU machine', tied: [defaultHashThreads(4, 8), defaultHashThreads(2, 1)] },
  { section: SESSIONS, text: '(Linux: nice 5,', tied: sourceConstant('src/modules/staff/password-worker.ts', 'HASH_THREAD_NICE') },
  { section: SESSIONS, text: 'an attempt gets 429', notThreshold: 'HTTP status' },
  { section: SESSIONS, text: "Try again in 2 seconds.'\n  (`Retry-After: 2`)", tied: [BUSY_RETRY_SECONDS, BUSY_RETRY_SECONDS] },
  { section: SESSIONS, text: 'throttled like sign-in: 5 per 15 minutes', tied: [pair.limit, pair.windowMs / MINUTE_MS] },
  { section: SESSIONS, text: "then 429 'Too many wrong current passwords", notThreshold: 'HTTP status' },
  { section: SESSIONS, text: "Try again in\n  15 minutes.' until the block ends", tied: pair.blockMs / MINUTE_MS },
  { section: SESSIONS, text: '(127.0.0.1, [::1])', notThreshold: 'address' },
  { section: SESSIONS, text: '(302, path and query kept)', notThreshold: 'HTTP status' },
];

const doc = fs.readFileSync(path.join(__dirname, '..', 'docs', 'behaviour.md'), 'utf8');

/** The text of a `## ` section, without its heading. */
function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`docs/behaviour.md has no section "${title}"`);
  const body = doc.indexOf('\n', start + 1) + 1;
  const next = doc.indexOf('\n## ', body);
  return doc.slice(body, next < 0 ? undefined : next);
}

/** A figure in digits: not part of a name (P8, IPv4, SHA-256, 1M, p8-ceiling.ts). */
const DIGITS = /(?<![\w.-])\d[\d,]*(?:\.\d+)?(?![\w-])/g;
const WORDS: Record<string, number> = { no: 0, one: 1, two: 2, three: 3 };

/** The one figure a tied phrase states: its only number in digits, else its only number word. */
function statedFigure(text: string): number {
  const digits = [...text.matchAll(DIGITS)].map((m) => Number(m[0].replace(/,/g, '')));
  if (digits.length > 0) {
    if (digits.length > 1) throw new Error(`"${text}" states ${digits.length} figures: give each its own phrase`);
    return digits[0]!;
  }
  const words = text.toLowerCase().match(/\b(no|one|two|three)\b/g) ?? [];
  if (words.length !== 1) throw new Error(`"${text}" states no single figure`);
  return WORDS[words[0]!]!;
}

/** Every figure in digits a phrase states, in order. */
function statedFigures(text: string): number[] {
  return [...text.matchAll(DIGITS)].map((m) => Number(m[0].replace(/,/g, '')));
}

describe('docs/behaviour.md states the thresholds the code uses', () => {
  it.each(FIGURES.filter((f): f is Tied => 'tied' in f).map((f) => [f.section, f.text, f.tied] as const))('%s: "%s" is %p', (title, text, value) => {
    expect(section(title)).toContain(text);
    if (typeof value === 'number') expect(statedFigure(text)).toBe(value);
    else expect(statedFigures(text)).toEqual(value);
  });

  it.each(FIGURES.filter((f): f is NotThreshold => 'notThreshold' in f).map((f) => [f.section, f.text] as const))('%s: "%s" is still written', (title, text) => {
    expect(section(title)).toContain(text);
  });

  it.each(COVERED_SECTIONS)('every figure in "%s" is tied to a constant or said not to be a threshold', (title) => {
    const body = section(title);
    const listed: Array<[number, number]> = [];
    for (const figure of FIGURES.filter((f) => f.section === title)) {
      for (let at = body.indexOf(figure.text); at >= 0; at = body.indexOf(figure.text, at + 1)) listed.push([at, at + figure.text.length]);
    }
    const unlisted = [...body.matchAll(DIGITS)]
      .filter((m) => !listed.some(([from, to]) => m.index >= from && m.index + m[0].length <= to))
      .map((m) => `${m[0]} in "…${body.slice(Math.max(0, m.index - 40), m.index + m[0].length + 20).replace(/\s+/g, ' ')}…"`);
    expect(unlisted).toEqual([]);
  });

  it('the candidate lookup counts as far as the scoring assumes', () => {
    const lookup = fs.readFileSync(path.join(__dirname, 'db', 'functions', 'find_alt_candidates.sql'), 'utf8');
    const counted = [...lookup.matchAll(/desc, id desc limit (\d+)\) as/g)].map((m) => Number(m[1]));
    expect(counted.length).toBeGreaterThan(0);
    expect(new Set(counted)).toEqual(new Set([ANONYMITY_COUNT_CAP]));
    expect(lookup).toContain(`(select 1 from members limit ${RARITY.membersToJudgeRarity})`);
    const rareBranches = [...lookup.matchAll(/<= (\d+)/g)].map((m) => Number(m[1]));
    expect(new Set(rareBranches)).toEqual(new Set([RARITY.rareComponentOthers + 1]));
  });
});
