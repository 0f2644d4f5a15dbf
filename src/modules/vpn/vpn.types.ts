import type { VPN_VERDICTS } from '../../db/schema';

export type VpnVerdict = (typeof VPN_VERDICTS)[number];

/** Where the verdict came from. */
export type VpnSource = 'cache' | 'proxycheck' | 'tor-list' | 'datacenter-list' | 'none';

export interface VpnCheckResult {
  verdict: VpnVerdict;
  /** VPN operator or network owner when known (shown to a Limited Access visitor) */
  provider: string | null;
  source: VpnSource;
  /** the provider could not be asked: the failure policy decides, staff may review */
  checkFailed: boolean;
  /** browser time zone disagrees with the IP's country: a weak flag for staff, never a verdict */
  timezoneMismatch: boolean;
  /** ISO 3166-1 alpha-2 country of the address, when the provider said */
  countryCode?: string;
  /**
   * A provider verdict still to be cached, when the caller asked to write it itself
   * (`cacheWriteByCaller`): it saves a round trip by writing it in its own last statement.
   */
  cacheEntry?: CachedVpnVerdict;
}

/** VPN_CHECK_FAILURE: what happens when the provider cannot be asked. */
export type VpnFailurePolicy = 'allow' | 'limited' | 'deny';

export type VpnOutcome = 'verified' | 'limited_access' | 'denied';

/** A provider verdict remembered by IP hash, so a raid from one address asks the provider once. */
export interface CachedVpnVerdict {
  ipHash: string;
  verdict: VpnVerdict;
  provider: string | null;
  countryCode: string | null;
  /** what produced it, e.g. 'proxycheck' */
  source: string;
  checkedAt: Date;
  expiresAt: Date;
}
