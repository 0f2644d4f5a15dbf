import fs from 'node:fs';
import path from 'node:path';
import { DEFER_AFTER_MS } from './discord/bot/interaction-dispatcher';
import { VERIFY_DEFER_AFTER_MS } from './discord/bot/verify-button';
import { ALT_RESCORE_BATCHES_PER_RUN, DISCORD_PAUSE_CHECK_MINUTES } from './jobs/jobs';
import { DISCORD_PAUSE_LIMIT_MS, DISCORD_PAUSE_MS, DISCORD_PAUSE_RENEW_AFTER_MS } from './modules/raid';
import { DEFAULT_CANDIDATE_LIMIT, RESCORE_ATTEMPTS_PER_MEMBER, RESCORE_BATCH_SIZE, ANONYMITY_COUNT_CAP, RARITY } from './modules/alts';
import { NETWORK_PREFIX_BITS } from './modules/network';
import { CONSENT_TOKEN_TTL_MS, SIGN_IN_EXCHANGE_BUDGET_MS, OAUTH_STATE_TTL_MS } from './modules/verification';
import {
  DEFAULT_BCRYPT_COST,
  PASSWORD_MAX_BYTES,
  DEFAULT_LOGIN_THROTTLE,
  defaultHashThreads,
  BUSY_RETRY_SECONDS,
  DEVICE_COOKIE_MAX_AGE_MS,
  SIGN_IN_FLOOD,
  SIGN_IN_GATE,
  WAITING_PER_HASH_THREAD,
} from './modules/staff';
import { GUILD_MEMBER_CACHE_MAX_AGE_MS } from './discord/guild-member-cache';
import { POOL_CHECKOUT_WAIT_MS } from './db/client';
import { APPEAL_MESSAGE_MAX, APPEAL_REASON_MAX } from './shared/appeals';
import { APPEAL_QUEUE_LIMIT } from './modules/appeals';
import { APPEALS_LISTED } from './discord/commands/appeals.command';
import { HOUR_MS, MINUTE_MS, SESSION_MAX_AGE_DAYS, DAY_MS } from './shared/durations';
import { DEFAULT_RETENTION_DAYS, MINIMUM_AGE, MINIMUM_AGE_EU } from './shared/policy';
import { PASSWORD_MIN_LENGTH } from './shared/staff-account';
import { DISMISS_REASON_MAX } from './shared/text-limits';
import { STAFF_IDLE_TIMEOUT_MS } from './http/middleware/staff-session';
import { ADDRESS_BUDGET, CLASS_SIZE, NEWCOMER_BUDGET, SESSION_BUDGET, VISITOR_FLOW_REQUESTS } from './http/middleware/visitor-limit';
import { APPEAL_BUDGET } from './http/middleware/appeal-limit';
import { DATABASE_BUSY_RETRY_AFTER_SECONDS } from './http/middleware/errors';
import { PENDING_RESULT_AFTER_EXCHANGE_MS } from './http/routes/pending-sign-ins';
import { BROWSER_TOKEN_MAX_AGE_MS, generateBrowserToken } from './modules/browser-token';
import { FINGERPRINT_HASH_LENGTH, FINGERPRINT_LIMITS } from './shared/fingerprint';
import { STAFF_LANE_CONNECTIONS } from './db/staff-lane';
import { KEEP_ALIVE_MS } from './http/keep-alive';
import { ACCOUNT_AGE_ASSUMPTIONS, TIMING_ASSUMPTIONS } from '../scripts/bench/p8-population';
import { P8_BADGE_TARGETS } from '../scripts/bench/p8-verdicts';
import { UNCOMMITTED_RETRY } from './db/transaction-retry';
import { COUNT_LIMITS } from './modules/members';
import { AUDIT_PAGE_MAX } from './modules/audit';
import { AUDIT_LOG_REASON_MAX } from './modules/outbox';
import { MAX_MESSAGE } from './discord/outbox/pack-log-messages';
import { LOG_LINGER_MS } from './discord/outbox/outbox-worker';
import { CARDS_PER_MESSAGE, MAX_CUSTOM_ID, MAX_EMBED_TEXT } from './discord/log-cards/log-card-message';
import { TOKEN_PROBE_DELAYS_MS } from './discord/bot-token-health';
import { DISCORD_INVALID_REQUEST_LIMIT } from './discord/invalid-requests';
import { BUDGET_THRESHOLDS } from './discord/request-budget-gate';
import { STATISTICS_PERIODS } from './shared/statistics';
import { ROLE_ID_DIGITS } from './modules/settings';

/**
 * docs/behaviour.md is the one prose description of the product's rules: every figure it
 * states is tied here to the constant the code uses, so the two cannot drift apart.
 *
 * A `tied` entry is a phrase of the doc holding one figure (digits, or a number word) and the
 * constant it must equal, in the doc's unit. A `not a threshold` entry is a phrase whose figures
 * are something else (a measured bench result, an example, an HTTP status, a step number, the
 * "1" of "1 every 10 minutes", the "1–" of a text that may not be empty, an address, a value a field
 * is set to, a Discord error code, another system's figure, a test's setting): it says which, and
 * no constant is compared. In every section of the doc every figure written in digits must fall
 * inside a phrase listed here, so a new number fails until it is tied (or said not to be a
 * threshold). Digits that are part of a name (P8, IPv4, SHA-256, 1M) are names, not figures, and
 * so is the number of an ordered list's item ("2. runs the dashboard's own service").
 */

/** `tied` is the phrase's one figure, or each figure in digits in the order written. */
type Tied = { section: string; text: string; tied: number | readonly number[] };
type NotThreshold = {
  section: string;
  text: string;
  notThreshold:
    | 'measured'
    | 'example'
    | 'HTTP status'
    | 'Discord error code'
    | 'step number'
    | "a rate's unit"
    | 'not empty'
    | 'address'
    | 'a field value'
    | 'a name'
    | "a test's setting"
    | "another system's figure";
};
type Figure = Tied | NotThreshold;

const ALT = 'Alt detection';
const LIMITS = 'Limits and constants';
const SESSIONS = 'Staff, roles and sessions';
const APPEALS = 'Appeals';
const PERSONAL_DATA = 'Personal data and retention';
const LOCKDOWN = 'Lockdown and held members';
const VPN = 'VPN and proxy detection';
const BUTTON = 'The Discord button';
const FLOW_SECTION = 'The visitor flow';
const BADGES = 'Badges on a member card';
const MEMBER_LIST = 'Member list filters and search';
const AUDIT = 'Audit log';
const ROLES = 'Dangerous role choices';
const OUTBOX = 'Discord actions (the outbox)';
const STATISTICS = 'Statistics';
const SCREENS = 'Staff screens';
const RECORDS = 'Records and their fields';
const VALIDATION = 'Validation and messages';
const CALLS = 'The calls the web app makes';
const API = "The API beyond the dashboard's own calls";

/**
 * A numeric constant read from its source file: for the web app's (the server's tests do not load
 * the web's modules) and a worker thread's (its module starts the thread's work when loaded).
 */
function sourceConstant(file: string, name: string): number {
  const source = fs.readFileSync(path.join(__dirname, '..', file), 'utf8');
  const match = new RegExp(`(?:export )?const ${name} = ([\\d_.]+(?: \\* [\\d_.]+)*);`).exec(source);
  if (!match) throw new Error(`${file} has no numeric ${name}`);
  return match[1]!.split(' * ').reduce((product, factor) => product * Number(factor.replace(/_/g, '')), 1);
}

/** A number a migration sets (an index's or a column's storage parameter). */
function migrationSetting(file: string, pattern: RegExp): number {
  const match = pattern.exec(fs.readFileSync(path.join(__dirname, 'db', 'migrations', file), 'utf8'));
  if (!match) throw new Error(`${file} does not match ${pattern}`);
  return Number(match[1]);
}

const FLOW = VISITOR_FLOW_REQUESTS.length;
/** The longest a lost transaction waits in all before its last try: attempt n waits base × n plus up to base. */
const UNCOMMITTED_WAIT_MS = Array.from(
  { length: UNCOMMITTED_RETRY.attempts - 1 },
  (_, n) => UNCOMMITTED_RETRY.baseDelayMs * (n + 2),
).reduce((a, b) => a + b, 0);
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
  { section: ALT, text: 'canvas, WebGL and audio all equal and shown by no other member', tied: RARITY.uniqueDeviceOthers },
  { section: ALT, text: 'with at most 2 others showing it and a rare component', tied: RARITY.fingerprintElsewhereOthers },
  { section: ALT, text: 'another component shown by at least 10 others', tied: RARITY.commonComponentOthers },
  { section: ALT, text: 'with at most 2 others showing both there', tied: RARITY.sameAddressFingerprintOthers },
  { section: ALT, text: 'on an uncrowded address (at most 10 others)', tied: RARITY.crowdedAddress },
  { section: ALT, text: '(/24 for IPv4', tied: NETWORK_PREFIX_BITS.ipv4 },
  { section: ALT, text: '/64 for IPv6)', tied: NETWORK_PREFIX_BITS.ipv6 },
  { section: ALT, text: 'right at least nine times in ten', tied: [P8_BADGE_TARGETS.precision * 10, 10] },
  { section: ALT, text: 'at most 300 wrong badges', tied: P8_BADGE_TARGETS.falsePer10k },
  { section: ALT, text: 'per 10,000 legitimate\nmembers', notThreshold: "a rate's unit" },
  { section: ALT, text: 'the last 3,000 of 29,808 accounts', notThreshold: 'measured' },
  {
    section: ALT,
    text: 'rules 109 / 0 (the same address and a rare component) and 24 / 3 (the same fingerprint elsewhere,\n88.9%',
    notThreshold: 'measured',
  },
  { section: ALT, text: 'fingerprint 201 / 297', notThreshold: 'measured' },
  { section: ALT, text: 'the same machine settings 22 / 27', notThreshold: 'measured' },
  { section: ALT, text: 'a partial match 73 / 751', notThreshold: 'measured' },
  { section: ALT, text: 'elsewhere 9 / 10', notThreshold: 'measured' },
  { section: ALT, text: 'links 31 / 12, and 11 of the 12 are', notThreshold: 'measured' },
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
  { section: ALT, text: '(60% of', tied: ACCOUNT_AGE_ASSUMPTIONS.base.madeForIt * 100 },
  { section: ALT, text: 'two days before they verify, 10% of members', tied: ACCOUNT_AGE_ASSUMPTIONS.base.newToDiscord * 100 },
  {
    section: ALT,
    text: 'was right 82% of the time in the links it added to the other rules (56 alts, 12\n  strangers, all 12',
    notThreshold: 'measured',
  },
  { section: ALT, text: '9 another member', notThreshold: 'measured' },
  { section: ALT, text: '3 a member new to Discord)', notThreshold: 'measured' },
  {
    section: ALT,
    text: '(30% and 30%)',
    tied: [ACCOUNT_AGE_ASSUMPTIONS.pessimistic.madeForIt * 100, ACCOUNT_AGE_ASSUMPTIONS.pessimistic.newToDiscord * 100],
  },
  { section: ALT, text: '30%) 65%. Both', notThreshold: 'measured' },
  { section: ALT, text: '(`TIMING_ASSUMPTIONS`: 30% of alts', tied: TIMING_ASSUMPTIONS.base.sameSitting * 100 },
  { section: ALT, text: 'for the purpose; 20% of household', tied: TIMING_ASSUMPTIONS.base.householdTogether * 100 },
  {
    section: ALT,
    text: 'pessimistic 15% and 40%)',
    tied: [TIMING_ASSUMPTIONS.pessimistic.sameSitting * 100, TIMING_ASSUMPTIONS.pessimistic.householdTogether * 100],
  },
  {
    section: ALT,
    text: 'were right 84% and 59% of the\n  time in the links they added (pessimistic 70% and 43%)',
    notThreshold: 'measured',
  },
  {
    section: ALT,
    text: 'would reach 61.1% of same-device alts at 61 wrong\n  badges per 10,000 members (pessimistic 57.8% at 75)',
    notThreshold: 'measured',
  },
  { section: ALT, text: 'not the 72% the target asks', tied: P8_BADGE_TARGETS.sameDeviceRecall * 100 },
  {
    section: ALT,
    text: 'finds\n57.8% of same-device alts, 99.5% precise, with 17 wrong badges per 10,000 legitimate members; the\nbound at as many wrong links is 71.0%',
    notThreshold: 'measured',
  },
  { section: ALT, text: 'The 119 alts the bound takes with no wrong link and the tier misses are in 76 groups', notThreshold: 'measured' },
  {
    section: ALT,
    text: 'is 11% precise for the same address and fingerprint, 6% for the same address,\nfonts and settings, 57% for',
    notThreshold: 'measured',
  },
  // dismissing and re-scoring
  { section: ALT, text: 'optional `reason` (at most 500\ncharacters)', tied: DISMISS_REASON_MAX },
  { section: ALT, text: 'is refused (409)', notThreshold: 'HTTP status' },
  { section: ALT, text: 'is 404;', notThreshold: 'HTTP status' },
  { section: ALT, text: '"This device profile is shared by 214 other members"', notThreshold: 'example' },
  { section: ALT, text: '"same device model as 214 other members on 180 networks (weak, not counted)"', notThreshold: 'example' },
  { section: ALT, text: '"same device\nmodel as 1 other member', notThreshold: 'example' },
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
  { section: APPEALS, text: 'the strongest three', tied: sourceConstant('src/modules/appeals/appeals.service.ts', 'TOP_LINKS') },

  // Personal data and retention
  { section: PERSONAL_DATA, text: 'prefix (/24 or /64)', tied: [NETWORK_PREFIX_BITS.ipv4, NETWORK_PREFIX_BITS.ipv6] },
  { section: PERSONAL_DATA, text: '(default 30,', tied: DEFAULT_RETENTION_DAYS },
  {
    section: PERSONAL_DATA,
    text: 'about 1.7 s (one `VACUUM ANALYZE` of the whole database held every\n  statement for 6.8-8.0 s)',
    notThreshold: 'measured',
  },

  // Lockdown and held members
  {
    section: LOCKDOWN,
    text: 'about 1.7 µs per attempt in\nit on PGlite in process (a 2,000-attempt window: 4.9 ms; it was 13.0 ms with the join)',
    notThreshold: 'measured',
  },
  { section: LOCKDOWN, text: 'every attempt of 24 hours', tied: DAY_MS / HOUR_MS },
  { section: LOCKDOWN, text: '(a 144th of it for ten-minute windows)', notThreshold: 'example' },
  { section: LOCKDOWN, text: '(34,000 on a server of a million', notThreshold: 'measured' },
  { section: LOCKDOWN, text: 'about 9 ms of each verification', notThreshold: 'measured' },
  {
    section: LOCKDOWN,
    text: '23 h 45 min ahead',
    tied: [Math.floor(DISCORD_PAUSE_MS / HOUR_MS), (DISCORD_PAUSE_MS % HOUR_MS) / MINUTE_MS],
  },
  { section: LOCKDOWN, text: 'Discord refuses more than 24 hours', tied: DISCORD_PAUSE_LIMIT_MS / HOUR_MS },
  { section: LOCKDOWN, text: 'A job every 15 minutes', tied: DISCORD_PAUSE_CHECK_MINUTES },
  { section: LOCKDOWN, text: 'once the last ask is six hours old', tied: DISCORD_PAUSE_RENEW_AFTER_MS / HOUR_MS },
  {
    section: LOCKDOWN,
    text: 'at most every five minutes',
    tied: sourceConstant('src/discord/linked-roles-registration.ts', 'RETRY_AFTER_MS') / MINUTE_MS,
  },
  { section: LOCKDOWN, text: '`verified` 1 when', notThreshold: 'a field value' },
  { section: LOCKDOWN, text: '`not_alt` 1', notThreshold: 'a field value' },
  { section: LOCKDOWN, text: 'no record: 0 and 0', notThreshold: 'a field value' },
  { section: LOCKDOWN, text: 'connection: not an alt 0)', notThreshold: 'a field value' },
  { section: LOCKDOWN, text: 'clear the connection (verified 0, not an alt 0, no', notThreshold: 'a field value' },
  { section: LOCKDOWN, text: '`invalid_grant`, or 401)', notThreshold: 'HTTP status' },

  // VPN and proxy detection
  { section: VPN, text: 'answered with HTTP 200 counts as a failure', notThreshold: 'HTTP status' },

  // The Discord button
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
  {
    section: LIMITS,
    text: '| redirect after creating a staff account | 1.5 seconds |',
    tied: sourceConstant('web/src/features/staff/pages/create-staff-page.tsx', 'RETURN_DELAY_MS') / 1000,
  },
  { section: LIMITS, text: '| appeal message | 1–', notThreshold: 'not empty' },
  { section: LIMITS, text: '| appeal rejection reason | 1–', notThreshold: 'not empty' },
  { section: LIMITS, text: '| appeal rate limit | 3 tries in a row', tied: APPEAL_BUDGET.capacity },
  { section: LIMITS, text: 'then 1 every', notThreshold: "a rate's unit" },
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
  { section: LIMITS, text: '(1 every', notThreshold: "a rate's unit" },
  { section: LIMITS, text: 'every 7.5 s)', tied: 1 / NEWCOMER_BUDGET.refillPerSecond },
  { section: LIMITS, text: 'in the database 10 minutes', tied: OAUTH_STATE_TTL_MS / MINUTE_MS },
  {
    section: LIMITS,
    text: 'in the process 2 minutes after the callback',
    tied: (SIGN_IN_EXCHANGE_BUDGET_MS + PENDING_RESULT_AFTER_EXCHANGE_MS) / MINUTE_MS,
  },
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
  { section: LIMITS, text: 'staff routes on their own 2 connections', tied: STAFF_LANE_CONNECTIONS },
  { section: LIMITS, text: '| closed after 65 s |', tied: KEEP_ALIVE_MS / 1000 },

  // Staff, roles and sessions
  { section: SESSIONS, text: 'Idle timeout 12 hours', tied: STAFF_IDLE_TIMEOUT_MS / HOUR_MS },
  { section: SESSIONS, text: 'absolute 7 days', tied: SESSION_MAX_AGE_DAYS },
  { section: SESSIONS, text: 'refused (400', notThreshold: 'HTTP status' },
  { section: SESSIONS, text: 'bcrypt, cost 12', tied: DEFAULT_BCRYPT_COST },
  { section: SESSIONS, text: '8 to 72 bytes everywhere', tied: [PASSWORD_MIN_LENGTH, PASSWORD_MAX_BYTES] },
  { section: SESSIONS, text: 'refuse with 429', notThreshold: 'HTTP status' },
  {
    section: SESSIONS,
    text: "one address: 5 attempts per 15 minutes, then 15 minutes' block",
    tied: [pair.limit, pair.windowMs / MINUTE_MS, pair.blockMs / MINUTE_MS],
  },
  { section: SESSIONS, text: 'for this username from your address. Try again in 15 minutes.', tied: pair.blockMs / MINUTE_MS },
  {
    section: SESSIONS,
    text: "(a password spray): 20 per 15 minutes, then 15 minutes' block",
    tied: [client.limit, client.windowMs / MINUTE_MS, client.blockMs / MINUTE_MS],
  },
  { section: SESSIONS, text: "('Too many failed sign-ins from your address. Try again in 15 minutes.')", tied: client.blockMs / MINUTE_MS },
  {
    section: SESSIONS,
    text: "every address together: 100 failures per 5 minutes, then 5 minutes' block",
    tied: [global.limit, global.windowMs / MINUTE_MS, global.blockMs / MINUTE_MS],
  },
  { section: SESSIONS, text: 'can still sign in. Try again in 5 minutes.', tied: global.blockMs / MINUTE_MS },
  {
    section: SESSIONS,
    text: 'when 20 sign-ins\n  are refused as busy within 1 minute',
    tied: [SIGN_IN_FLOOD.refusals, SIGN_IN_FLOOD.windowMs / MINUTE_MS],
  },
  { section: SESSIONS, text: 'there is refused for 5 minutes', tied: SIGN_IN_FLOOD.pauseMs / MINUTE_MS },
  { section: SESSIONS, text: 'in the last 30 days (a known client)', tied: DEFAULT_LOGIN_THROTTLE.knownClientMs / DAY_MS },
  { section: SESSIONS, text: '(over\n  50 attempts per 15 minutes from anywhere)', tied: [account.limit, account.windowMs / MINUTE_MS] },
  { section: SESSIONS, text: 'after a fixed 3 s wait', tied: DEFAULT_LOGIN_THROTTLE.slowDownMs / 1000 },
  { section: SESSIONS, text: 'one, at most 4,', tied: defaultHashThreads(64, 1) },
  { section: SESSIONS, text: 'at least 1 each: 1 on a 2-CPU machine', tied: [defaultHashThreads(4, 8), defaultHashThreads(2, 1)] },
  { section: SESSIONS, text: '(Linux: nice 5,', tied: sourceConstant('src/modules/staff/password-worker.ts', 'HASH_THREAD_NICE') },
  { section: SESSIONS, text: 'two more per thread waiting', tied: WAITING_PER_HASH_THREAD },
  { section: SESSIONS, text: 'an attempt gets 429', notThreshold: 'HTTP status' },
  { section: SESSIONS, text: "Try again in 2 seconds.'\n  (`Retry-After: 2`)", tied: [BUSY_RETRY_SECONDS, BUSY_RETRY_SECONDS] },
  // the device cookie and the gate in front of unknown devices
  { section: SESSIONS, text: '(only sign-in reads it), 90 days from the last sign-in', tied: DEVICE_COOKIE_MAX_AGE_MS / DAY_MS },
  { section: SESSIONS, text: 'Its value is `1.<staff id>', notThreshold: 'a field value' },
  {
    section: SESSIONS,
    text: "a limit of its own instead: 5 failures per 15\n  minutes for that username from that device, then 15 minutes' block",
    tied: [pair.limit, pair.windowMs / MINUTE_MS, pair.blockMs / MINUTE_MS],
  },
  { section: SESSIONS, text: "for this username from this browser. Try again in 15 minutes.'", tied: pair.blockMs / MINUTE_MS },
  {
    section: SESSIONS,
    text: 'waits for one of 4\n  places per web process, with at most 8 waiting',
    tied: [SIGN_IN_GATE.concurrency, SIGN_IN_GATE.queueLimit],
  },
  { section: SESSIONS, text: "beyond that it gets 429 'The server is busy", notThreshold: 'HTTP status' },
  {
    section: SESSIONS,
    text: "Try again in 2 seconds.' (`Retry-After: 2`) at once. A password spray",
    tied: [BUSY_RETRY_SECONDS, BUSY_RETRY_SECONDS],
  },
  { section: SESSIONS, text: 'throttled like sign-in: 5 per 15 minutes', tied: [pair.limit, pair.windowMs / MINUTE_MS] },
  { section: SESSIONS, text: "then 429 'Too many wrong current passwords", notThreshold: 'HTTP status' },
  { section: SESSIONS, text: "Try again in\n  15 minutes.' until the block ends", tied: pair.blockMs / MINUTE_MS },
  { section: SESSIONS, text: '(127.0.0.1, [::1])', notThreshold: 'address' },
  { section: SESSIONS, text: '(302, path and query kept)', notThreshold: 'HTTP status' },

  // The visitor flow
  { section: FLOW_SECTION, text: '| 1 | `/` consent page', notThreshold: 'step number' },
  { section: FLOW_SECTION, text: '| 2 | `POST /api/consent`', notThreshold: 'step number' },
  { section: FLOW_SECTION, text: '| 3 | `GET /oauth/start`', notThreshold: 'step number' },
  { section: FLOW_SECTION, text: '| 4 | `GET /oauth/callback`', notThreshold: 'step number' },
  { section: FLOW_SECTION, text: '| 5 | `/rules`', notThreshold: 'step number' },
  { section: FLOW_SECTION, text: '| 6 | `/success`', notThreshold: 'step number' },
  { section: FLOW_SECTION, text: '| 7 | Discord:', notThreshold: 'step number' },
  { section: FLOW_SECTION, text: '(step 5)', notThreshold: 'step number' },
  { section: FLOW_SECTION, text: 'session cookie, valid 10 minutes', tied: CONSENT_TOKEN_TTL_MS / MINUTE_MS },
  { section: FLOW_SECTION, text: 'a new random one (32 bytes', tied: Buffer.from(browserToken, 'base64url').length },
  { section: FLOW_SECTION, text: 'instead of each drawing a 429', notThreshold: 'HTTP status' },
  { section: FLOW_SECTION, text: 'no turn within 60 s', tied: SIGN_IN_EXCHANGE_BUDGET_MS / 1000 },
  { section: FLOW_SECTION, text: 'up to four tries', tied: UNCOMMITTED_RETRY.attempts },
  { section: FLOW_SECTION, text: 'at most about 2 s of waiting', tied: Math.round(UNCOMMITTED_WAIT_MS / 1000) },
  { section: FLOW_SECTION, text: 'still away after about 2 s more', tied: Math.round(UNCOMMITTED_WAIT_MS / 1000) },
  { section: FLOW_SECTION, text: "the card\n'404 Page Not Found'", notThreshold: 'HTTP status' },
  { section: FLOW_SECTION, text: '(`WEB_CONCURRENCY` > 1)', notThreshold: 'a field value' },
  {
    section: FLOW_SECTION,
    text: 'not ended 30 s past the exchange budget',
    tied: sourceConstant('src/http/routes/oauth.router.ts', 'AFTER_EXCHANGE_MS') / 1000,
  },
  { section: FLOW_SECTION, text: 'once 10 minutes old', tied: OAUTH_STATE_TTL_MS / MINUTE_MS },
  { section: FLOW_SECTION, text: 'the five limited requests', tied: FLOW },
  { section: FLOW_SECTION, text: 'a class of 40', tied: CLASS_SIZE },
  { section: FLOW_SECTION, text: 'one and a half times each', notThreshold: 'example' },
  { section: FLOW_SECTION, text: 'each: 300\nrequests', tied: ADDRESS_BUDGET.capacity },
  {
    section: FLOW_SECTION,
    text: 'requests, refilled in five minutes',
    tied: ADDRESS_BUDGET.capacity / ADDRESS_BUDGET.refillPerSecond / 60,
  },
  { section: FLOW_SECTION, text: 'has its own 15,', tied: SESSION_BUDGET.capacity },
  { section: FLOW_SECTION, text: "then one flow's worth a\nminute", tied: (SESSION_BUDGET.refillPerSecond * 60) / FLOW },
  { section: FLOW_SECTION, text: "share their address's 40,", tied: NEWCOMER_BUDGET.capacity },
  {
    section: FLOW_SECTION,
    text: 'in five minutes. A\nrequest refused',
    tied: NEWCOMER_BUDGET.capacity / NEWCOMER_BUDGET.refillPerSecond / 60,
  },
  { section: FLOW_SECTION, text: 'please try again in 8 seconds', notThreshold: 'example' },
  { section: FLOW_SECTION, text: 'keeps up to 4,096 connections', tied: sourceConstant('src/server.ts', 'LISTEN_BACKLOG') },
  { section: FLOW_SECTION, text: 'waits up to 15 s', tied: POOL_CHECKOUT_WAIT_MS / 1000 },
  { section: FLOW_SECTION, text: 'no connection gets 503', notThreshold: 'HTTP status' },
  { section: FLOW_SECTION, text: 'with `Retry-After: 2`', tied: DATABASE_BUSY_RETRY_AFTER_SECONDS },
  { section: FLOW_SECTION, text: 'never a 500,', notThreshold: 'HTTP status' },
  { section: FLOW_SECTION, text: 'on PostgreSQL (2\nconnections per web process)', tied: STAFF_LANE_CONNECTIONS },
  { section: FLOW_SECTION, text: 'closed after 65 s', tied: KEEP_ALIVE_MS / 1000 },
  { section: FLOW_SECTION, text: "a reverse proxy's usual 60 s", notThreshold: "another system's figure" },

  // Badges on a member card
  { section: BADGES, text: "amber '1 Alt' with one", notThreshold: 'example' },

  // Member list filters and search
  { section: MEMBER_LIST, text: 'the total is exact up to 1,000', tied: COUNT_LIMITS.cap },
  { section: MEMBER_LIST, text: '(100 for a search)', tied: COUNT_LIMITS.searchCap },
  { section: MEMBER_LIST, text: 'shown as "1,000+"', tied: COUNT_LIMITS.cap },
  {
    section: MEMBER_LIST,
    text: 'pending list (at most 64 kB',
    tied: migrationSetting('0022_members_trigram_pending_list.sql', /gin_pending_list_limit = (\d+)/),
  },
  { section: MEMBER_LIST, text: '(migration 0022)', notThreshold: 'a name' },
  {
    section: MEMBER_LIST,
    text: "the column's 1,000 histogram entries",
    tied: migrationSetting('0009_members_search_statistics.sql', /SET STATISTICS (\d+)/),
  },
  {
    section: MEMBER_LIST,
    text: '(statistics target 1000,',
    tied: migrationSetting('0009_members_search_statistics.sql', /SET STATISTICS (\d+)/),
  },
  { section: MEMBER_LIST, text: 'migration 0009, so', notThreshold: 'a name' },
  { section: MEMBER_LIST, text: 'takes 1.5–2 ms', notThreshold: 'measured' },

  // Audit log
  { section: AUDIT, text: 'the appeal\n#4 of @bob', notThreshold: 'example' },
  { section: AUDIT, text: '`limit` (1–', notThreshold: 'not empty' },
  { section: AUDIT, text: '–200)', tied: AUDIT_PAGE_MAX },
  { section: AUDIT, text: 'answers 400 with `{error}`', notThreshold: 'HTTP status' },

  // Dangerous role choices
  { section: ROLES, text: 'answers 400 `{error, field}`', notThreshold: 'HTTP status' },

  // Discord actions (the outbox)
  { section: OUTBOX, text: 'for up to 15 minutes, the roles', tied: GUILD_MEMBER_CACHE_MAX_AGE_MS / MINUTE_MS },
  { section: OUTBOX, text: '(Discord answers 201 with the member). A 204 means', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: '(Discord answers 204 to a role', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: '"Gatekeeper: appeal #12 approved', notThreshold: 'example' },
  { section: OUTBOX, text: "most Discord's 512 characters", tied: AUDIT_LOG_REASON_MAX },
  { section: OUTBOX, text: 'and meet a 429', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: "message (Discord's 2,000 characters)", tied: MAX_MESSAGE },
  { section: OUTBOX, text: 'at most 5\nseconds after its first line', tied: LOG_LINGER_MS / 1000 },
  { section: OUTBOX, text: 'share a message, up to 5 (', tied: CARDS_PER_MESSAGE },
  { section: OUTBOX, text: '(Discord allows 5 rows', tied: CARDS_PER_MESSAGE },
  { section: OUTBOX, text: 'of at most 5 buttons, 10 embeds', notThreshold: "another system's figure" },
  { section: OUTBOX, text: '6,000 characters\nof embed text', tied: MAX_EMBED_TEXT },
  { section: OUTBOX, text: '`custom_id` (at most 100 characters)', tied: MAX_CUSTOM_ID },
  { section: OUTBOX, text: "not a role id → 400 'Role", notThreshold: 'HTTP status' },
  { section: OUTBOX, text: 'a role id\n(17 to 20 digits)', tied: [ROLE_ID_DIGITS.min, ROLE_ID_DIGITS.max] },
  { section: OUTBOX, text: '(@everyone) → 400', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: 'does not have → 400', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: '**Bot token rejected (401).** The first 401', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: 'answers 503 `token-rejected`', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: '`/healthz` stays 200', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: 'Every 5 s,', tied: TOKEN_PROBE_DELAYS_MS[0] / 1000 },
  { section: OUTBOX, text: 'doubling up to 5 min', tied: TOKEN_PROBE_DELAYS_MS[TOKEN_PROBE_DELAYS_MS.length - 1]! / MINUTE_MS },
  { section: OUTBOX, text: 'setup: 403 Missing Permissions / Missing Access, or 404 Unknown Role', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: "'Waiting for a fix (403 50013: Missing Permissions)", notThreshold: 'Discord error code' },
  { section: OUTBOX, text: 'A 403 the self-check cannot', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: '**Unknown Member (404 10007)', notThreshold: 'Discord error code' },
  { section: OUTBOX, text: '**A 429.**', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: 'A 429 that still reaches', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: 'draws 10,000 answers', tied: DISCORD_INVALID_REQUEST_LIMIT.limit },
  { section: OUTBOX, text: 'answers of 401, 403 or 429 (429s', notThreshold: 'HTTP status' },
  { section: OUTBOX, text: 'aside) in 10 minutes', tied: DISCORD_INVALID_REQUEST_LIMIT.windowMs / MINUTE_MS },
  { section: OUTBOX, text: 'plain-text 429 `error code: 1015`', notThreshold: 'Discord error code' },
  { section: OUTBOX, text: 'over a sliding 10 minutes', tied: DISCORD_INVALID_REQUEST_LIMIT.windowMs / MINUTE_MS },
  { section: OUTBOX, text: 'below 25% of the limit', tied: BUDGET_THRESHOLDS.slowFrom * 100 },
  { section: OUTBOX, text: 'from 25% every call', tied: BUDGET_THRESHOLDS.slowFrom * 100 },
  { section: OUTBOX, text: 'from 50% log messages wait', tied: BUDGET_THRESHOLDS.pauseFrom * 100 },
  {
    section: OUTBOX,
    text: 'of the limit, 240 ms',
    tied: DISCORD_INVALID_REQUEST_LIMIT.windowMs / (DISCORD_INVALID_REQUEST_LIMIT.limit * BUDGET_THRESHOLDS.widestSpacingShare),
  },
  { section: OUTBOX, text: 'the count past 75%', tied: (BUDGET_THRESHOLDS.pauseFrom + BUDGET_THRESHOLDS.widestSpacingShare) * 100 },
  { section: OUTBOX, text: 'From 25% the dashboard', tied: BUDGET_THRESHOLDS.slowFrom * 100 },
  { section: OUTBOX, text: 'instead of each drawing a 429,', notThreshold: 'HTTP status' },
  {
    section: OUTBOX,
    text: 'its windows 20 times shorter',
    tied: 1 / sourceConstant('src/discord/raid-invalid-requests.int.test.ts', 'TIME_SCALE'),
  },
  { section: OUTBOX, text: "the raid's size (50 per 30 s)", notThreshold: "a test's setting" },
  { section: OUTBOX, text: 'the same for 2,000 visitors', notThreshold: "a test's setting" },

  // Statistics
  { section: STATISTICS, text: 'for the last 7, 30 or 90 UTC days', tied: [...STATISTICS_PERIODS] },
  {
    section: STATISTICS,
    text: 'the 8 most seen providers',
    tied: sourceConstant('src/modules/statistics/statistics.repository.ts', 'PROVIDERS_SHOWN'),
  },
  {
    section: STATISTICS,
    text: '(each 15 minutes\nafter it ended',
    tied: sourceConstant('src/modules/statistics/statistics.repository.ts', 'LATE_COMMIT_MS') / MINUTE_MS,
  },

  // Staff screens
  { section: SCREENS, text: 'when altsFound is above 0', notThreshold: 'a field value' },
  { section: SCREENS, text: "'Password must be at least 8 characters long'", tied: PASSWORD_MIN_LENGTH },
  {
    section: SCREENS,
    text: 'back to the dashboard 1.5 s after success',
    tied: sourceConstant('web/src/features/staff/pages/create-staff-page.tsx', 'RETURN_DELAY_MS') / 1000,
  },
  { section: SCREENS, text: 'the period buttons (7, 30, 90 days)', tied: [...STATISTICS_PERIODS] },
  { section: SCREENS, text: "'Same browser as @name on 2 Nov'", notThreshold: 'example' },

  // Records and their fields
  { section: RECORDS, text: 'the first 32 hex characters', tied: FINGERPRINT_HASH_LENGTH },

  // Validation and messages
  { section: VALIDATION, text: "'Password must be at least 8 characters'", tied: PASSWORD_MIN_LENGTH },
  { section: VALIDATION, text: 'a 401 from the staff API', notThreshold: 'HTTP status' },

  // The calls the web app makes
  { section: CALLS, text: '(401 without a live sign-in, 404 without a member record)', notThreshold: 'HTTP status' },
  { section: CALLS, text: '`GET /api/admin/statistics?days=7\\|30\\|90`', tied: [...STATISTICS_PERIODS] },

  // The API beyond the dashboard's own calls
  { section: API, text: 'answers 409 once any staff account', notThreshold: 'HTTP status' },
  { section: API, text: 'any staff session (401 without)', notThreshold: 'HTTP status' },
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

/** Every `## ` section of the doc, so a new one is checked too. */
const SECTIONS = [...doc.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);

/** The number of an ordered list's item: alone at the start of its line, followed by ". ". */
function isListItemNumber(body: string, at: number, digits: string): boolean {
  const lineStart = body.lastIndexOf('\n', at - 1) + 1;
  return /^\s*$/.test(body.slice(lineStart, at)) && body.startsWith('. ', at + digits.length);
}

/** A figure in digits: not part of a name (P8, IPv4, SHA-256, 1M, p8-ceiling.ts). */
const DIGITS = /(?<![\w.-])\d[\d,]*(?:\.\d+)?(?![\w-])/g;
const WORDS: Record<string, number> = { no: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
const NUMBER_WORDS = new RegExp(`\\b(${Object.keys(WORDS).join('|')})\\b`, 'g');

/** The one figure a tied phrase states: its only number in digits, else its only number word. */
function statedFigure(text: string): number {
  const digits = [...text.matchAll(DIGITS)].map((m) => Number(m[0].replace(/,/g, '')));
  if (digits.length > 0) {
    if (digits.length > 1) throw new Error(`"${text}" states ${digits.length} figures: give each its own phrase`);
    return digits[0]!;
  }
  const words = text.toLowerCase().match(NUMBER_WORDS) ?? [];
  if (words.length !== 1) throw new Error(`"${text}" states no single figure`);
  return WORDS[words[0]!]!;
}

/** Every figure a phrase states, in order: its numbers in digits, else its number words. */
function statedFigures(text: string): number[] {
  const digits = [...text.matchAll(DIGITS)].map((m) => Number(m[0].replace(/,/g, '')));
  if (digits.length > 0) return digits;
  return (text.toLowerCase().match(NUMBER_WORDS) ?? []).map((word) => WORDS[word]!);
}

describe('docs/behaviour.md states the thresholds the code uses', () => {
  it.each(FIGURES.filter((f): f is Tied => 'tied' in f).map((f) => [f.section, f.text, f.tied] as const))(
    '%s: "%s" is %p',
    (title, text, value) => {
      expect(section(title)).toContain(text);
      if (typeof value === 'number') expect(statedFigure(text)).toBe(value);
      else expect(statedFigures(text)).toEqual(value);
    },
  );

  it.each(FIGURES.filter((f): f is NotThreshold => 'notThreshold' in f).map((f) => [f.section, f.text] as const))(
    '%s: "%s" is still written',
    (title, text) => {
      expect(section(title)).toContain(text);
    },
  );

  it.each(SECTIONS)('every figure in "%s" is tied to a constant or said not to be a threshold', (title) => {
    const body = section(title);
    const listed: Array<[number, number]> = [];
    for (const figure of FIGURES.filter((f) => f.section === title)) {
      for (let at = body.indexOf(figure.text); at >= 0; at = body.indexOf(figure.text, at + 1)) listed.push([at, at + figure.text.length]);
    }
    const unlisted = [...body.matchAll(DIGITS)]
      .filter((m) => !isListItemNumber(body, m.index, m[0]))
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
