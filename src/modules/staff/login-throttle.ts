import crypto from 'node:crypto';
import { inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { loginThrottle } from '../../db/schema';

/**
 * Login throttling that an attacker cannot turn into a lock-out (DESIGN.md §5).
 *
 * Three buckets count attempts (an attempt is counted before the password is checked,
 * so parallel requests cannot slip past the limit):
 * - pair    (username, client address): hard and small — guessing one account from one place;
 * - client  (address): spraying many usernames from one place;
 * - account (username, from anywhere): a distributed attack on one account. This one is
 *   soft: it never blocks a client that logged in to this account successfully before
 *   (a "known client"), so the owner still gets in from its usual address while the
 *   account is under attack from elsewhere. Known clients skip the client bucket too,
 *   but never their own pair bucket.
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

export interface LoginThrottlePolicy {
  pair: ThrottleRule;
  client: ThrottleRule;
  account: ThrottleRule;
  /** how long a successful login makes its client "known" for the account */
  knownClientMs: number;
}

const MINUTE = 60_000;
export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = {
  pair: { limit: 5, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE },
  client: { limit: 20, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE },
  account: { limit: 50, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE },
  knownClientMs: 30 * 24 * 60 * MINUTE,
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
  | { allowed: true; knownClient: boolean }
  | { allowed: false; scope: ThrottleScope; retryAfterMs: number; /** this attempt started the block */ blockStarted: boolean };

const iso = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/**
 * Counts one attempt in one statement and returns the count with any block in force, so
 * parallel attempts each see a distinct count (the statement is atomic per key).
 */
async function countAttempt(executor: Executor, key: string, rule: ThrottleRule, now: Date): Promise<{ attempts: number; blockedUntil: Date | null }> {
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
 * Decides whether a login attempt may check a password, and counts it. Call before
 * the (slow) password check; call recordLoginSuccess after a success.
 */
export async function takeLoginAttempt(executor: Executor, keys: LoginThrottleKeys, now: Date, policy: LoginThrottlePolicy): Promise<ThrottleDecision> {
  const rows = await executor
    .select()
    .from(loginThrottle)
    .where(inArray(loginThrottle.key, [keys.pair, keys.client, keys.account, keys.known]));
  const byKey = new Map(rows.map((r) => [r.key, r]));
  // a known-client row keeps its expiry in blocked_until, so the retention purge keeps it until then
  const knownUntil = byKey.get(keys.known)?.blockedUntil;
  const knownClient = knownUntil != null && knownUntil > now;
  const scopes: ThrottleScope[] = knownClient ? ['pair'] : ['pair', 'client', 'account'];

  for (const scope of scopes) {
    const blockedUntil = byKey.get(keys[scope])?.blockedUntil;
    if (blockedUntil && blockedUntil > now) {
      return { allowed: false, scope, retryAfterMs: blockedUntil.getTime() - now.getTime(), blockStarted: false };
    }
  }
  for (const scope of scopes) {
    const rule = policy[scope];
    const { attempts, blockedUntil } = await countAttempt(executor, keys[scope], rule, now);
    if (blockedUntil && blockedUntil > now) {
      return { allowed: false, scope, retryAfterMs: blockedUntil.getTime() - now.getTime(), blockStarted: false };
    }
    if (attempts > rule.limit) {
      // only the attempt that crossed the limit starts (and reports) the block
      const blockStarted = attempts === rule.limit + 1;
      if (blockStarted) await startBlock(executor, keys[scope], rule, now);
      return { allowed: false, scope, retryAfterMs: rule.blockMs, blockStarted };
    }
  }
  return { allowed: true, knownClient };
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
