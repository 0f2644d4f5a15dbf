import crypto from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
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
 * Single-use tokens (consent tokens, OAuth state). Only their SHA-256 is stored, so a
 * database reader cannot replay them; consuming one is a single atomic update.
 */
export const oneTimeTokensRepository = {
  async issue(executor: Executor, purpose: TokenPurpose, ttlMs: number, now: Date): Promise<{ token: string; tokenHash: string }> {
    const token = randomToken();
    const tokenHash = hashToken(token);
    await executor.insert(oneTimeTokens).values({ tokenHash, purpose, expiresAt: new Date(now.getTime() + ttlMs), createdAt: now });
    return { token, tokenHash };
  },

  /** True once for a live token of that purpose; false when unknown, expired, used or of another purpose. */
  async consume(executor: Executor, purpose: TokenPurpose, token: string, now: Date): Promise<boolean> {
    const rows = await executor
      .update(oneTimeTokens)
      .set({ usedAt: now })
      .where(and(eq(oneTimeTokens.tokenHash, hashToken(token)), eq(oneTimeTokens.purpose, purpose), isNull(oneTimeTokens.usedAt), gt(oneTimeTokens.expiresAt, now)))
      .returning({ tokenHash: oneTimeTokens.tokenHash });
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
