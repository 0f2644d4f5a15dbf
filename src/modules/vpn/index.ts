export type { VpnCheckResult, VpnFailurePolicy, VpnOutcome, VpnSource, VpnVerdict } from './vpn.types';
export { decideVpnOutcome, isVpnVerdict } from './vpn-outcome';
export { createVpnCheckService, type VpnCheckInput, type VpnCheckService, type VpnCheckServiceDeps, type ProviderCall } from './vpn-check.service';
export { createProxycheckClient, ProxycheckError, type ProxycheckAnswer, type ProxycheckClient, type ProxycheckClientOptions, type ProxycheckFailureReason } from './proxycheck.client';
export {
  createProxycheckEmulator,
  SANDBOX_VPN_IP,
  SANDBOX_VPN_PROVIDER,
  SANDBOX_PROXY_IP,
  SANDBOX_DATACENTER_IP,
  SANDBOX_TOR_IP,
  SANDBOX_CLEAN_IP,
  type ProxycheckEmulator,
  type ProxycheckFault,
  type ProxycheckEmulatorRequest,
} from './proxycheck-emulator';
export { createOfflineSignals, defaultOfflineListPaths, type OfflineSignals, type OfflineListPaths, type OfflineSignal } from './offline-lists';
export { vpnCacheRepository, findCachedVerdict, saveCachedVerdict, purgeExpiredVerdicts, type VpnCacheRepository, type CachedVpnVerdict } from './vpn-cache.repository';
export { isTimezoneMismatch } from './timezone-mismatch';
