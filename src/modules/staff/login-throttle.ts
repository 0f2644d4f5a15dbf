import crypto from 'node:crypto';
import { inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { loginThrottle } from '../../db/schema';

/**
 * Login throttling that an attacker cannot turn into a lock-out.
 *
 * Three buckets count attempts (an attempt is counted before the password is checked,
 * so parallel requests cannot slip past a limit):
 * - pair    (username, client address): the only bucket that refuses. Small and hard:
 *   guessing one account from one place. Exactly `pair.limit` passwords are checked per
 *   window however many attempts race, then 429 until the block ends.
 * - client  (address): spraying many usernames from one place;
 * - account (username, from anywhere): a distributed attack on one account.
 *
 * The two shared buckets never refuse, because anything a stranger can fill would lock
 * out someone else: the account's owner (an attack from many addresses) or everyone behind
 * one shared address (a flood of made-up usernames from a school or office network).
 * Following OWASP's advice to prefer slowing down over locking out, an attempt over a
 * shared limit is still checked, but only after a fixed server-side delay (`slowDownMs`).
 * The delay is the same for every attempt and does not grow with the attack, so the owner
 * waits at most `slowDownMs` for a correct password, while each guess still costs the
 * attacker a held request on top of the pair limit, which bounds guesses against one
 * account to `pair.limit` per address per window. A client that signed in to the account
 * before (a "known client", as OWASP's device-cookie scheme trusts a known device) skips
 * the shared buckets entirely, but never its own pair bucket.
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

/** a shared bucket's rule: it never blocks, so it has no block length */
export type SharedThrottleRule = Omit<ThrottleRule, 'blockMs'>;

export interface LoginThrottlePolicy {
  pair: ThrottleRule;
  client: SharedThrottleRule;
  account: SharedThrottleRule;
  /** how long a successful login makes its client "known" for the account */
  knownClientMs: number;
  /** the fixed wait before checking a password once a shared bucket (client, account) is over its limit */
  slowDownMs: number;
}

const MINUTE = 60_000;
export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = {
  pair: { limit: 5, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE },
  client: { limit: 20, windowMs: 15 * MINUTE },
  account: { limit: 50, windowMs: 15 * MINUTE },
  knownClientMs: 30 * 24 * 60 * MINUTE,
  slowDownMs: 3_000,
};

export type ThrottleScope = 'pair' | 'client' | 'account';

export interface LoginThrottleKeys {
  pair: string;
  client: string;
  account: string;
  known: string;
}

/** Builds the bucket keys from keyed hashes of the username (case-insensitive) and the client address. */
export function loginThrottleKeys(hmacKey: Buffer, username: string, clientAddress: string): LoginThrottleKeys {
  const digest = (label: string, value: string) => crypto.createHmac('sha256', hmacKey).update(`${label}:${value}`, 'utf8').digest('hex').slice(0, 32);
  const subject = digest('staff-login-user', username.toLowerCase());
  const client = digest('staff-login-client', clientAddress);
  return { pair: `pair:${subject}:${client}`, client: `ip:${client}`, account: `user:${subject}`, known: `known:${subject}:${client}` };
}

export type ThrottleDecision =
  | {
      allowed: true;
      knownClient: boolean;
      /** wait this long before checking the password (a shared bucket is over its limit), else 0 */
      delayMs: number;
      /** the shared bucket over its limit, if any, and whether this attempt was the first over it */
      slowedBy: ThrottleScope | null;
      slowStarted: boolean;
    }
  | { allowed: false; scope: 'pair'; retryAfterMs: number; /** this attempt started the block */ blockStarted: boolean };

const iso = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/**
 * Counts one attempt in one statement and returns the count with any block in force, so
 * parallel attempts each see a distinct count (the statement is atomic per key).
 */
async function countAttempt(executor: Executor, key: string, rule: SharedThrottleRule, now: Date): Promise<{ attempts: number; blockedUntil: Date | null }> {
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

/**
 * Decides whether a login attempt may check a password (and after what delay), and
 * counts it. Call before the (slow) password check; call recordLoginSuccess after a success.
 */
export async function takeLoginAttempt(executor: Executor, keys: LoginThrottleKeys, now: Date, policy: LoginThrottlePolicy): Promise<ThrottleDecision> {
  const rows = await executor
    .select()
    .from(loginThrottle)
    .where(inArray(loginThrottle.key, [keys.pair, keys.known]));
  const byKey = new Map(rows.map((r) => [r.key, r]));
  // a known-client row keeps its expiry in blocked_until, so the retention purge keeps it until then
  const knownUntil = byKey.get(keys.known)?.blockedUntil;
  const knownClient = knownUntil != null && knownUntil > now;

  const pairBlockedUntil = byKey.get(keys.pair)?.blockedUntil;
  if (pairBlockedUntil && pairBlockedUntil > now) {
    return { allowed: false, scope: 'pair', retryAfterMs: pairBlockedUntil.getTime() - now.getTime(), blockStarted: false };
  }
  const pair = await countAttempt(executor, keys.pair, policy.pair, now);
  if (pair.blockedUntil && pair.blockedUntil > now) {
    return { allowed: false, scope: 'pair', retryAfterMs: pair.blockedUntil.getTime() - now.getTime(), blockStarted: false };
  }
  if (pair.attempts > policy.pair.limit) {
    // only the attempt that crossed the limit starts (and reports) the block
    const blockStarted = pair.attempts === policy.pair.limit + 1;
    if (blockStarted) await startBlock(executor, keys.pair, policy.pair, now);
    return { allowed: false, scope: 'pair', retryAfterMs: policy.pair.blockMs, blockStarted };
  }

  let slowedBy: ThrottleScope | null = null;
  let slowStarted = false;
  if (!knownClient) {
    for (const scope of ['client', 'account'] as const) {
      const { attempts } = await countAttempt(executor, keys[scope], policy[scope], now);
      if (attempts > policy[scope].limit && slowedBy === null) {
        slowedBy = scope;
        slowStarted = attempts === policy[scope].limit + 1;
      }
    }
  }
  return { allowed: true, knownClient, delayMs: slowedBy ? policy.slowDownMs : 0, slowedBy, slowStarted };
}

/** A success clears the pair bucket, gives back the shared buckets' count, and remembers the client. */
export async function recordLoginSuccess(executor: Executor, keys: LoginThrottleKeys, now: Date, policy: LoginThrottlePolicy, knownClient: boolean): Promise<void> {
  await executor.execute(sql`delete from login_throttle where key = ${keys.pair}`);
  if (!knownClient) {
    await executor.execute(sql`update login_throttle set failures = greatest(failures - 1, 0) where key in (${keys.client}, ${keys.account})`);
  }
  const until = new Date(now.getTime() + policy.knownClientMs);
  await executor
    .insert(loginThrottle)
    .values({ key: keys.known, failures: 0, windowStartedAt: now, blockedUntil: until })
    .onConflictDoUpdate({ target: loginThrottle.key, set: { windowStartedAt: iso(now), blockedUntil: iso(until) } });
}
