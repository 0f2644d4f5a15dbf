import crypto from 'node:crypto';
import { and, gt, inArray, like, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { loginThrottle } from '../../db/schema';

/**
 * Login throttling that an attacker cannot turn into a lock-out of staff who signed in before.
 *
 * Four buckets count attempts (an attempt is counted before the password is checked,
 * so parallel requests cannot slip past a limit, and a refused attempt never reaches the hash):
 * - pair    (username, client address): guessing one account from one place. Exactly
 *   `pair.limit` passwords are checked per window however many attempts race, then 429
 *   until the block ends.
 * - client  (address): a password spray, many usernames from one place. Over its limit the
 *   address is refused (429) until the block ends.
 * - global  (every address): failures spiking across many addresses, a distributed spray.
 *   Over its limit sign-in is refused (429) for everyone not known, until the block ends.
 * - account (username, from anywhere): a distributed attack on one account. It never
 *   refuses: anything a stranger can fill for one account would lock its owner out. Over
 *   its limit the password is still checked, after a fixed server-side delay
 *   (`slowDownMs`), as OWASP prefers slowing down to locking out.
 *
 * The client and global buckets can be filled by strangers too, so a client that signed in
 * to the account before (a "known client", as OWASP's device-cookie scheme trusts a known
 * device: here the account's username typed from an address that signed in to it within
 * `knownClientMs`) skips them, and the account bucket, entirely, but never its own pair
 * bucket. Attempts from known clients are not counted in the shared buckets either, so the
 * owner signing in during a spray neither trips nor is tripped by them. A success gives
 * back the shared buckets' count, so they measure failures.
 *
 * A browser with a valid device cookie of the account (device-cookie.ts) is a known client
 * from any address: a phone on mobile data is the same device from address to address. It
 * has a fifth bucket of its own, device (the device, one account), with the pair rule, so a
 * stolen device cookie buys `pair.limit` guesses per block, not a way round the throttle.
 *
 * Keys hold only keyed hashes: never an address, and never a typed username (people
 * type passwords into username fields).
 */

export interface ThrottleRule {
  /** attempts allowed per window; the next one starts a block */
  limit: number;
  windowMs: number;
  blockMs: number;
}

/** the account bucket's rule: it never blocks, so it has no block length */
export type SharedThrottleRule = Omit<ThrottleRule, 'blockMs'>;

export interface LoginThrottlePolicy {
  pair: ThrottleRule;
  client: ThrottleRule;
  global: ThrottleRule;
  account: SharedThrottleRule;
  /** how long a successful login makes its client "known" for the account */
  knownClientMs: number;
  /** the fixed wait before checking a password once a shared bucket (client, account) is over its limit */
  slowDownMs: number;
}

const MINUTE = 60_000;
export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = {
  pair: { limit: 5, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE },
  client: { limit: 20, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE },
  global: { limit: 100, windowMs: 5 * MINUTE, blockMs: 5 * MINUTE },
  account: { limit: 50, windowMs: 15 * MINUTE },
  knownClientMs: 30 * 24 * 60 * MINUTE,
  slowDownMs: 3_000,
};

/** the buckets that refuse an attempt */
export type RefusingScope = 'pair' | 'device' | 'client' | 'global';

export interface LoginThrottleKeys {
  pair: string;
  client: string;
  global: string;
  account: string;
  known: string;
  /** the device bucket, for a sign-in with a valid device cookie of the account */
  device?: string;
}

const GLOBAL_KEY = 'global';

/**
 * Builds the bucket keys from keyed hashes of the username (case-insensitive) and the client
 * address, and of the device when the sign-in carries a valid device cookie of the account.
 */
export function loginThrottleKeys(
  hmacKey: Buffer,
  username: string,
  clientAddress: string,
  device?: { staffId: number; issuedAtSeconds: number },
): LoginThrottleKeys {
  const digest = (label: string, value: string) =>
    crypto.createHmac('sha256', hmacKey).update(`${label}:${value}`, 'utf8').digest('hex').slice(0, 32);
  const subject = digest('staff-login-user', username.toLowerCase());
  const client = digest('staff-login-client', clientAddress);
  return {
    pair: `pair:${subject}:${client}`,
    client: `ip:${client}`,
    global: GLOBAL_KEY,
    account: `user:${subject}`,
    known: `known:${subject}:${client}`,
    ...(device ? { device: `device:${subject}:${digest('staff-login-device', `${device.staffId}:${device.issuedAtSeconds}`)}` } : {}),
  };
}

export type ThrottleDecision =
  | {
      allowed: true;
      knownClient: boolean;
      /** wait this long before checking the password (a shared bucket is over its limit), else 0 */
      delayMs: number;
      /** the account bucket when it is over its limit, and whether this attempt was the first over it */
      slowedBy: 'account' | null;
      slowStarted: boolean;
    }
  | { allowed: false; scope: RefusingScope; retryAfterMs: number; /** this attempt started the block */ blockStarted: boolean };

const iso = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/**
 * Counts one attempt in one statement and returns the count with any block in force, so
 * parallel attempts each see a distinct count (the statement is atomic per key).
 */
async function countAttempt(
  executor: Executor,
  key: string,
  rule: SharedThrottleRule,
  now: Date,
): Promise<{ attempts: number; blockedUntil: Date | null }> {
  const windowStart = new Date(now.getTime() - rule.windowMs);
  const expired = sql`${loginThrottle.windowStartedAt} <= ${iso(windowStart)}`;
  const [row] = await executor
    .insert(loginThrottle)
    .values({ key, failures: 1, windowStartedAt: now })
    .onConflictDoUpdate({
      target: loginThrottle.key,
      set: {
        failures: sql`case when ${expired} then 1 else ${loginThrottle.failures} + 1 end`,
        windowStartedAt: sql`case when ${expired} then ${iso(now)} else ${loginThrottle.windowStartedAt} end`,
      },
    })
    .returning({ failures: loginThrottle.failures, blockedUntil: loginThrottle.blockedUntil });
  return { attempts: row?.failures ?? 1, blockedUntil: row?.blockedUntil ?? null };
}

/**
 * Starts a block. The count is kept (never reset), so an attempt counted a moment later
 * still sees a count over the limit; the window is moved so that it expires exactly when
 * the block does, and the next attempt after the block starts a fresh count.
 */
async function startBlock(executor: Executor, key: string, rule: ThrottleRule, now: Date): Promise<void> {
  await executor.execute(sql`
    update login_throttle set blocked_until = ${iso(new Date(now.getTime() + rule.blockMs))},
      window_started_at = ${iso(new Date(now.getTime() + rule.blockMs - rule.windowMs))}
    where key = ${key}`);
}

type Refusal<S extends string = RefusingScope> = { allowed: false; scope: S; retryAfterMs: number; blockStarted: boolean };

/**
 * Counts one attempt in a refusing bucket. Returns the refusal when the bucket is (or this
 * attempt puts it) over its limit; only the attempt that crossed the limit starts the block.
 */
async function countRefusing<S extends string>(
  executor: Executor,
  scope: S,
  key: string,
  rule: ThrottleRule,
  now: Date,
): Promise<Refusal<S> | null> {
  const counted = await countAttempt(executor, key, rule, now);
  if (counted.blockedUntil && counted.blockedUntil > now) {
    return { allowed: false, scope, retryAfterMs: counted.blockedUntil.getTime() - now.getTime(), blockStarted: false };
  }
  if (counted.attempts <= rule.limit) return null;
  const blockStarted = counted.attempts === rule.limit + 1;
  if (blockStarted) await startBlock(executor, key, rule, now);
  return { allowed: false, scope, retryAfterMs: rule.blockMs, blockStarted };
}

/**
 * Decides whether a login attempt may check a password (and after what delay), and
 * counts it. Call before the (slow) password check; call recordLoginSuccess after a success.
 * A block already in force is found by one read and refuses without writing anything, so
 * a spray that is being refused costs one indexed read per attempt.
 */
export async function takeLoginAttempt(
  executor: Executor,
  keys: LoginThrottleKeys,
  now: Date,
  policy: LoginThrottlePolicy,
): Promise<ThrottleDecision> {
  const rows = await executor
    .select()
    .from(loginThrottle)
    .where(inArray(loginThrottle.key, [keys.pair, keys.known, keys.client, keys.global, ...(keys.device ? [keys.device] : [])]));
  const byKey = new Map(rows.map((r) => [r.key, r]));
  // a known-client row keeps its expiry in blocked_until, so the retention purge keeps it until then
  const knownUntil = byKey.get(keys.known)?.blockedUntil;
  const knownClient = keys.device !== undefined || (knownUntil != null && knownUntil > now);

  const buckets: Array<{ scope: RefusingScope; key: string; rule: ThrottleRule }> = knownClient
    ? [{ scope: 'pair', key: keys.pair, rule: policy.pair }]
    : (['pair', 'client', 'global'] as const).map((scope) => ({ scope, key: keys[scope], rule: policy[scope] }));
  if (keys.device !== undefined) buckets.push({ scope: 'device', key: keys.device, rule: policy.pair });
  for (const { scope, key } of buckets) {
    const blockedUntil = byKey.get(key)?.blockedUntil;
    if (blockedUntil && blockedUntil > now)
      return { allowed: false, scope, retryAfterMs: blockedUntil.getTime() - now.getTime(), blockStarted: false };
  }
  for (const { scope, key, rule } of buckets) {
    const refusal = await countRefusing(executor, scope, key, rule, now);
    if (refusal) return refusal;
  }
  if (knownClient) return { allowed: true, knownClient, delayMs: 0, slowedBy: null, slowStarted: false };

  const { attempts } = await countAttempt(executor, keys.account, policy.account, now);
  const slowed = attempts > policy.account.limit;
  return {
    allowed: true,
    knownClient,
    delayMs: slowed ? policy.slowDownMs : 0,
    slowedBy: slowed ? 'account' : null,
    slowStarted: attempts === policy.account.limit + 1,
  };
}

/** A success clears the pair (and device) bucket, gives back the shared buckets' count, and remembers the client. */
export async function recordLoginSuccess(
  executor: Executor,
  keys: LoginThrottleKeys,
  now: Date,
  policy: LoginThrottlePolicy,
  knownClient: boolean,
): Promise<void> {
  await executor.execute(sql`delete from login_throttle where key in (${keys.pair}, ${keys.device ?? keys.pair})`);
  if (!knownClient) {
    await executor.execute(
      sql`update login_throttle set failures = greatest(failures - 1, 0) where key in (${keys.client}, ${keys.global}, ${keys.account})`,
    );
  }
  const until = new Date(now.getTime() + policy.knownClientMs);
  await executor
    .insert(loginThrottle)
    .values({ key: keys.known, failures: 0, windowStartedAt: now, blockedUntil: until })
    .onConflictDoUpdate({ target: loginThrottle.key, set: { windowStartedAt: iso(now), blockedUntil: iso(until) } });
}

/** Most known-client keys read at once: staff times the addresses they signed in from in `knownClientMs`. */
const KNOWN_CLIENTS_READ = 10_000;

/** The keys of the known clients (`LoginThrottleKeys.known`) still known at `now`. */
export async function listKnownClientKeys(executor: Executor, now: Date): Promise<string[]> {
  const rows = await executor
    .select({ key: loginThrottle.key })
    .from(loginThrottle)
    .where(and(like(loginThrottle.key, 'known:%'), gt(loginThrottle.blockedUntil, now)))
    .limit(KNOWN_CLIENTS_READ);
  return rows.map((row) => row.key);
}

/**
 * Checking one's own current password (changing it while signed in) is throttled like a
 * login: one bucket per account, the pair rule, wrong passwords counted before the check.
 * Only someone holding the account's session can fill it, so it locks out no one else.
 */
export function ownPasswordThrottleKey(hmacKey: Buffer, staffId: number): string {
  return `own:${crypto.createHmac('sha256', hmacKey).update(`staff-own-password:${staffId}`, 'utf8').digest('hex').slice(0, 32)}`;
}

/** Counts one current-password check; the refusal when the account is over the limit, else null. */
export async function takeOwnPasswordCheck(
  executor: Executor,
  key: string,
  now: Date,
  rule: ThrottleRule,
): Promise<Refusal<'own_password'> | null> {
  const [row] = await executor
    .select()
    .from(loginThrottle)
    .where(inArray(loginThrottle.key, [key]));
  if (row?.blockedUntil && row.blockedUntil > now)
    return { allowed: false, scope: 'own_password', retryAfterMs: row.blockedUntil.getTime() - now.getTime(), blockStarted: false };
  return countRefusing(executor, 'own_password', key, rule, now);
}

/** A right current password forgets the earlier wrong ones. */
export async function clearOwnPasswordChecks(executor: Executor, key: string): Promise<void> {
  await executor.execute(sql`delete from login_throttle where key = ${key}`);
}
