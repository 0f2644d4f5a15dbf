import { and, eq, gt, lte, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { preparedPerExecutor } from '../../db/prepared-per-executor';
import { vpnCache } from '../../db/schema';
import type { CachedVpnVerdict } from './vpn.types';

export type { CachedVpnVerdict };

type Row = typeof vpnCache.$inferSelect;

function toCached(row: Row): CachedVpnVerdict {
  return {
    ipHash: row.ipHash,
    verdict: row.verdict,
    provider: row.provider,
    countryCode: row.countryCode,
    source: row.source,
    checkedAt: row.checkedAt,
    expiresAt: row.expiresAt,
  };
}

/**
 * The cache read every sign-in makes (while Discord exchanges the code), built once per database
 * (prepared-per-executor.ts). `now` is sent as text, as the column's own encoder writes a time.
 */
const preparedFindFor = preparedPerExecutor((executor) =>
  executor
    .select()
    .from(vpnCache)
    .where(and(eq(vpnCache.ipHash, sql.placeholder('ipHash')), gt(vpnCache.expiresAt, sql.placeholder('now'))))
    .limit(1)
    .prepare('gk_vpn_cache_find'),
);

export async function findCachedVerdict(ex: Executor, ipHash: string, now: Date): Promise<CachedVpnVerdict | null> {
  const [row] = await preparedFindFor(ex).execute({ ipHash, now: now.toISOString() });
  return row ? toCached(row) : null;
}

/** The upsert of a verdict, not run: await it, or run it inside another statement (a data-modifying WITH). */
export function saveCachedVerdictQuery(ex: Executor, entry: CachedVpnVerdict) {
  const values = {
    verdict: entry.verdict,
    provider: entry.provider,
    countryCode: entry.countryCode,
    source: entry.source,
    checkedAt: entry.checkedAt,
    expiresAt: entry.expiresAt,
  };
  return ex
    .insert(vpnCache)
    .values({ ipHash: entry.ipHash, ...values })
    .onConflictDoUpdate({ target: vpnCache.ipHash, set: values });
}

export async function saveCachedVerdict(ex: Executor, entry: CachedVpnVerdict): Promise<void> {
  await saveCachedVerdictQuery(ex, entry);
}

/** For the retention job: cached verdicts are keyed by a personal datum (the IP hash). */
export async function purgeExpiredVerdicts(ex: Executor, now: Date): Promise<number> {
  const deleted = await ex.delete(vpnCache).where(lte(vpnCache.expiresAt, now)).returning({ ipHash: vpnCache.ipHash });
  return deleted.length;
}

export interface VpnCacheRepository {
  find: typeof findCachedVerdict;
  save: typeof saveCachedVerdict;
  purgeExpired: typeof purgeExpiredVerdicts;
}

export const vpnCacheRepository: VpnCacheRepository = {
  find: findCachedVerdict,
  save: saveCachedVerdict,
  purgeExpired: purgeExpiredVerdicts,
};
