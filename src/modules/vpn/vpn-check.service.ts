import type { Clock } from '../../clock';
import type { Executor } from '../../db/client';
import type { Logger } from '../../logger';
import { isNonPublicIp } from '../network';
import type { OfflineSignals, OfflineSignal } from './offline-lists';
import { ProxycheckError, type ProxycheckAnswer, type ProxycheckClient, type ProxycheckFailureReason } from './proxycheck.client';
import { isTimezoneMismatch } from './timezone-mismatch';
import type { CachedVpnVerdict, VpnCacheRepository } from './vpn-cache.repository';
import type { VpnCheckResult, VpnVerdict } from './vpn.types';

export interface VpnCheckInput {
  /** the visitor's normalised address: sent to the provider, never logged or stored */
  ip: string;
  /** its keyed hash (network/ip-hash.ts): the cache key */
  ipHash: string;
  /** the fingerprint's timezone field, for the weak time-zone/country flag */
  browserTimezone?: string | null;
  /** a new provider verdict is not cached here but returned (`cacheEntry`) for the caller to write with its own statement */
  cacheWriteByCaller?: boolean;
  /** the cache read started earlier for this address (`readCacheEarly`); used when it is for `ipHash` */
  earlyCacheRead?: EarlyCacheRead;
}

/**
 * A cache read started before the check, while the caller waits on something else (the sign-in:
 * Discord's code exchange), so that the check does not wait for the database too. It never
 * fails: a failed read is a miss, and the check asks the provider.
 */
export interface EarlyCacheRead {
  ipHash: string;
  read: Promise<ProviderVerdict | null>;
}

export interface ProviderCall {
  ok: boolean;
  durationMs: number;
  reason?: ProxycheckFailureReason;
}

export interface VpnCheckServiceDeps {
  /** the database (not a transaction: the check runs before the verification transaction opens) */
  db: Executor;
  cache: VpnCacheRepository;
  /** null: no provider configured; offline signals only, and that is not a failure */
  proxycheck: ProxycheckClient | null;
  offline: OfflineSignals | null;
  clock: Clock;
  /** how long a provider verdict is reused (VPN_CACHE_HOURS); 0 disables the cache */
  cacheTtlMs: number;
  logger?: Logger;
  /** for metrics: provider latency and failures */
  onProviderCall?: (call: ProviderCall) => void;
}

export interface VpnCheckService {
  /** Never throws: any failure becomes `checkFailed` and, without another signal, verdict 'unknown'. */
  check(input: VpnCheckInput): Promise<VpnCheckResult>;
  /** Starts the cache read of an address's verdict now, for a check made later (VpnCheckInput.earlyCacheRead). */
  readCacheEarly(address: Pick<VpnCheckInput, 'ip' | 'ipHash'>): EarlyCacheRead;
}

/** A verdict the cache or the provider gave for an address. */
export interface ProviderVerdict {
  verdict: VpnVerdict;
  provider: string | null;
  countryCode: string | null;
  source: 'cache' | 'proxycheck';
}

interface ProviderLookup {
  known: ProviderVerdict | null;
  checkFailed: boolean;
  /** a new provider verdict to cache, and whether this lookup wrote it already */
  entry?: { verdict: CachedVpnVerdict; written: boolean };
}

const LIST_SOURCE: Record<OfflineSignal, VpnCheckResult['source']> = { tor: 'tor-list', datacenter: 'datacenter-list' };

/**
 * The pipeline (docs/behaviour.md#vpn-and-proxy-detection): cache (by IP hash) → proxycheck.io → offline signals (Tor exits,
 * datacenter ranges), plus the weak time-zone flag. The offline lists are consulted
 * whenever the provider did not already name a VPN/proxy (clean, failed or absent),
 * so a provider outage still catches listed Tor exits and datacenters.
 */
export function createVpnCheckService(deps: VpnCheckServiceDeps): VpnCheckService {
  // concurrent checks of one address (a raid) share one cache lookup and one provider call
  const inflight = new Map<string, Promise<ProviderLookup>>();

  async function askProvider(client: ProxycheckClient, input: VpnCheckInput): Promise<ProxycheckAnswer | ProxycheckError> {
    const started = Date.now();
    try {
      const answer = await client.lookup(input.ip);
      deps.onProviderCall?.({ ok: true, durationMs: Date.now() - started });
      return answer;
    } catch (error) {
      const failure = error instanceof ProxycheckError ? error : new ProxycheckError('network', 'lookup failed');
      deps.onProviderCall?.({ ok: false, durationMs: Date.now() - started, reason: failure.reason });
      deps.logger?.warn({ reason: failure.reason, httpStatus: failure.httpStatus, detail: failure.message }, 'VPN provider check failed');
      return failure;
    }
  }

  /** cache → provider (→ cache), once per address at a time */
  function lookupOnce(input: VpnCheckInput, now: Date): Promise<ProviderLookup> {
    const pending = inflight.get(input.ipHash);
    if (pending) return pending;
    const lookup = (async (): Promise<ProviderLookup> => {
      const early = input.earlyCacheRead?.ipHash === input.ipHash ? input.earlyCacheRead.read : null;
      const cached = await (early ?? fromCache(input.ipHash, now));
      if (cached || !deps.proxycheck) return { known: cached, checkFailed: false };
      const answer = await askProvider(deps.proxycheck, input);
      if (answer instanceof ProxycheckError) return { known: null, checkFailed: true };
      const entry = cacheEntryOf(input, answer, now);
      if (entry && !input.cacheWriteByCaller) await remember(entry);
      return {
        known: { verdict: answer.verdict, provider: answer.provider, countryCode: answer.countryCode, source: 'proxycheck' },
        checkFailed: false,
        ...(entry ? { entry: { verdict: entry, written: !input.cacheWriteByCaller } } : {}),
      };
    })().finally(() => inflight.delete(input.ipHash));
    inflight.set(input.ipHash, lookup);
    return lookup;
  }

  async function fromCache(ipHash: string, now: Date): Promise<ProviderVerdict | null> {
    if (deps.cacheTtlMs <= 0) return null;
    try {
      const cached = await deps.cache.find(deps.db, ipHash, now);
      return cached ? { verdict: cached.verdict, provider: cached.provider, countryCode: cached.countryCode, source: 'cache' } : null;
    } catch (error) {
      deps.logger?.warn({ err: error }, 'VPN cache read failed; asking the provider');
      return null;
    }
  }

  /** What a provider answer puts in the cache; null when the cache is off. */
  function cacheEntryOf(input: VpnCheckInput, answer: ProxycheckAnswer, now: Date): CachedVpnVerdict | null {
    if (deps.cacheTtlMs <= 0) return null;
    return {
      ipHash: input.ipHash,
      verdict: answer.verdict,
      provider: answer.provider,
      countryCode: answer.countryCode,
      source: 'proxycheck',
      checkedAt: now,
      expiresAt: new Date(now.getTime() + deps.cacheTtlMs),
    };
  }

  async function remember(entry: CachedVpnVerdict): Promise<void> {
    try {
      await deps.cache.save(deps.db, entry);
    } catch (error) {
      deps.logger?.warn({ err: error }, 'VPN cache write failed');
    }
  }

  async function offlineSignal(ip: string): Promise<OfflineSignal | null> {
    if (!deps.offline) return null;
    try {
      return await deps.offline.check(ip);
    } catch (error) {
      deps.logger?.warn({ err: error }, 'offline VPN lists failed');
      return null;
    }
  }

  async function run(input: VpnCheckInput): Promise<VpnCheckResult> {
    const now = deps.clock.now();
    // a loopback or private address (development, or a proxy TRUST_PROXY does not trust) is
    // unknown to any provider: asking would only spend quota
    const lookup: ProviderLookup = isNonPublicIp(input.ip) ? { known: null, checkFailed: false } : await lookupOnce(input, now);
    // a lookup shared with a concurrent check of the same address may have left the write undone
    const entry = lookup.entry && !lookup.entry.written ? lookup.entry.verdict : null;
    if (entry && !input.cacheWriteByCaller) await remember(entry);
    const result = await verdictOf(input, lookup, now);
    return entry && input.cacheWriteByCaller ? { ...result, cacheEntry: entry } : result;
  }

  async function verdictOf(input: VpnCheckInput, { known, checkFailed }: ProviderLookup, now: Date): Promise<VpnCheckResult> {
    const countryCode = known?.countryCode ?? undefined;
    const base = {
      checkFailed,
      timezoneMismatch: isTimezoneMismatch(input.browserTimezone, countryCode, now),
      ...(countryCode ? { countryCode } : {}),
    };

    if (known && known.verdict !== 'clean') return { ...base, verdict: known.verdict, provider: known.provider, source: known.source };
    const signal = await offlineSignal(input.ip);
    if (signal)
      return { ...base, verdict: signal, provider: signal === 'tor' ? 'Tor' : (known?.provider ?? null), source: LIST_SOURCE[signal] };
    // a clean address's network owner (the visitor's ISP) is not kept
    if (known) return { ...base, verdict: 'clean', provider: null, source: known.source };
    if (checkFailed) return { ...base, verdict: 'unknown', provider: null, source: 'none' };
    return { ...base, verdict: 'clean', provider: null, source: 'none' };
  }

  return {
    // an address the check will not look up (see run) is not read either
    readCacheEarly: ({ ip, ipHash }) => ({ ipHash, read: isNonPublicIp(ip) ? Promise.resolve(null) : fromCache(ipHash, deps.clock.now()) }),
    async check(input) {
      try {
        return await run(input);
      } catch (error) {
        deps.logger?.error({ err: error }, 'VPN check failed unexpectedly');
        return { verdict: 'unknown', provider: null, source: 'none', checkFailed: true, timezoneMismatch: false };
      }
    },
  };
}
