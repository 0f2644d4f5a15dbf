/** The vpn module, as the rest of the server uses it. */
export { saveCachedVerdictQuery, vpnCacheRepository } from './vpn-cache.repository';
export { type EarlyCacheRead, createVpnCheckService } from './vpn-check.service';
export { decideVpnOutcome, isVpnVerdict } from './vpn-outcome';
export { type VpnCheckResult, type VpnFailurePolicy, type VpnOutcome } from './vpn.types';
export { createOfflineSignals, defaultOfflineListPaths } from './offline-lists';
export { SANDBOX_VPN_IP, createProxycheckEmulator, type ProxycheckEmulator } from './proxycheck-emulator';
export { createProxycheckClient } from './proxycheck.client';
