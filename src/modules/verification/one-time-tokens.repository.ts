import crypto from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { oneTimeTokens } from '../../db/schema';

export type TokenPurpose = 'consent' | 'oauth_state';

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export function randomToken(bytes = 32): string {
  return crypto.randomBytes(bytes).toString('base64url');
}

/**
 * The two statements every visitor runs twice (issue, consume), built once per database and
 * prepared: Drizzle does not rebuild their SQL for each request, and on PostgreSQL they are
 * named statements, parsed once per connection. Values are placeholders (times as ISO text).
 */
function prepareStatements(executor: Executor) {
  const now = sql`${sql.placeholder('now')}::timestamptz`;
  return {
    issue: executor
      .insert(oneTimeTokens)
      .values({ tokenHash: sql.placeholder('tokenHash'), purpose: sql.placeholder('purpose'), expiresAt: sql.placeholder('expiresAt'), createdAt: sql.placeholder('createdAt') })
      .prepare('gk_one_time_token_issue'),
    consume: executor
      .update(oneTimeTokens)
      .set({ usedAt: now })
      .where(and(eq(oneTimeTokens.tokenHash, sql.placeholder('tokenHash')), eq(oneTimeTokens.purpose, sql.placeholder('purpose')), isNull(oneTimeTokens.usedAt), gt(oneTimeTokens.expiresAt, now)))
      .returning({ tokenHash: oneTimeTokens.tokenHash })
      .prepare('gk_one_time_token_consume'),
  };
}

const preparedStatements = new WeakMap<Executor, ReturnType<typeof prepareStatements>>();

function preparedFor(executor: Executor): ReturnType<typeof prepareStatements> {
  let prepared = preparedStatements.get(executor);
  if (!prepared) {
    prepared = prepareStatements(executor);
    preparedStatements.set(executor, prepared);
  }
  return prepared;
}

/**
 * Single-use tokens (consent tokens, OAuth state). Only their SHA-256 is stored, so a
 * database reader cannot replay them; consuming one is a single atomic update.
 */
export const oneTimeTokensRepository = {
  async issue(executor: Executor, purpose: TokenPurpose, ttlMs: number, now: Date): Promise<{ token: string; tokenHash: string }> {
    const token = randomToken();
    const tokenHash = hashToken(token);
    await preparedFor(executor).issue.execute({ tokenHash, purpose, expiresAt: new Date(now.getTime() + ttlMs), createdAt: now });
    return { token, tokenHash };
  },

  /** True once for a live token of that purpose; false when unknown, expired, used or of another purpose. */
  async consume(executor: Executor, purpose: TokenPurpose, token: string, now: Date): Promise<boolean> {
    const rows = await preparedFor(executor).consume.execute({ tokenHash: hashToken(token), purpose, now: now.toISOString() });
    return rows.length === 1;
  },

  /** Whether a token is live, without using it (to validate everything before burning it). */
  async isLive(executor: Executor, purpose: TokenPurpose, token: string, now: Date): Promise<boolean> {
    const rows = await executor
      .select({ tokenHash: oneTimeTokens.tokenHash })
      .from(oneTimeTokens)
      .where(and(eq(oneTimeTokens.tokenHash, hashToken(token)), eq(oneTimeTokens.purpose, purpose), isNull(oneTimeTokens.usedAt), gt(oneTimeTokens.expiresAt, now)));
    return rows.length === 1;
  },
};
