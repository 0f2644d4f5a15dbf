/** The vpn module, as the rest of the server uses it. */
export { saveCachedVerdictQuery } from './vpn-cache.repository';
export { type EarlyCacheRead } from './vpn-check.service';
export { decideVpnOutcome, isVpnVerdict } from './vpn-outcome';
export { type VpnCheckResult, type VpnFailurePolicy, type VpnOutcome } from './vpn.types';
