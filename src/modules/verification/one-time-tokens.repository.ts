import crypto from 'node:crypto';
import { eq, sql, type SQLWrapper } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { preparedPerExecutor } from '../../db/prepared-per-executor';
import { retryOnLostConnection } from '../../db/transaction-retry';
import { oneTimeTokens } from '../../db/schema';
import { readSignedToken, signToken, type TokenPurpose } from './signed-token';

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/**
 * The statement every visitor runs twice (the consent token's use, the OAuth state's), built
 * once per database and prepared (prepared-per-executor.ts). A token's first use inserts its
 * row; a second finds the row there and inserts nothing, so the answer is "no row".
 */
const preparedUseFor = preparedPerExecutor((executor) =>
  executor
    .insert(oneTimeTokens)
    .values({
      tokenHash: sql.placeholder('tokenHash'),
      purpose: sql.placeholder('purpose'),
      expiresAt: sql.placeholder('expiresAt'),
      usedAt: sql.placeholder('now'),
      createdAt: sql.placeholder('now'),
    })
    .onConflictDoNothing({ target: oneTimeTokens.tokenHash })
    .returning({ tokenHash: oneTimeTokens.tokenHash })
    .prepare('gk_one_time_token_use'),
);

/**
 * Single-use tokens (consent tokens, OAuth state), signed with `key` (`signed-token.ts`).
 * Issuing one writes nothing; using one records its SHA-256 with its expiry, in one atomic
 * insert that only the first use gets through. The retention job deletes the records once
 * the tokens have expired, when no use could succeed anyway. A database reader sees only
 * hashes of used tokens, so can replay nothing.
 */
export function createOneTimeTokens(key: Buffer) {
  const liveExpiry = (purpose: TokenPurpose, token: string, now: Date): Date | null => {
    const expiresAt = readSignedToken(key, purpose, token);
    return expiresAt && expiresAt.getTime() > now.getTime() ? expiresAt : null;
  };
  /** A live token of that purpose, ready to be used up; null when forged, expired or of another purpose (no database asked). */
  const open = (
    purpose: TokenPurpose,
    token: string,
    now: Date,
  ): { use(executor: Executor): Promise<boolean>; useQuery(executor: Executor): SQLWrapper } | null => {
    const expiresAt = liveExpiry(purpose, token, now);
    if (!expiresAt) return null;
    return {
      /** the use as a write to run inside another statement (`with used as (…)`): it returns the token's hash on its first use only */
      useQuery: (executor) =>
        executor
          .insert(oneTimeTokens)
          .values({ tokenHash: hashToken(token), purpose, expiresAt, usedAt: now, createdAt: now })
          .onConflictDoNothing({ target: oneTimeTokens.tokenHash })
          .returning({ tokenHash: oneTimeTokens.tokenHash }),
      async use(executor) {
        // a use whose connection was lost (a PostgreSQL restart) is tried again rather than failing the visitor's
        // step: if the lost one was kept after all, this one finds the token used and refuses, as any replay
        const rows = await retryOnLostConnection(() =>
          preparedUseFor(executor).execute({ tokenHash: hashToken(token), purpose, expiresAt, now }),
        );
        return rows.length === 1;
      },
    };
  };
  return {
    issue(purpose: TokenPurpose, ttlMs: number, now: Date): { token: string; tokenHash: string } {
      const token = signToken(key, purpose, new Date(now.getTime() + ttlMs));
      return { token, tokenHash: hashToken(token) };
    },

    open,

    /** True once for a live token of that purpose; false when forged, expired, used or of another purpose. */
    async consume(executor: Executor, purpose: TokenPurpose, token: string, now: Date): Promise<boolean> {
      return (await open(purpose, token, now)?.use(executor)) ?? false;
    },

    /** Whether a token is live, without using it (to validate everything before burning it). */
    async isLive(executor: Executor, purpose: TokenPurpose, token: string, now: Date): Promise<boolean> {
      if (!liveExpiry(purpose, token, now)) return false;
      const used = await executor
        .select({ tokenHash: oneTimeTokens.tokenHash })
        .from(oneTimeTokens)
        .where(eq(oneTimeTokens.tokenHash, hashToken(token)));
      return used.length === 0;
    },
  };
}
