export { normalizeIp, parseIp, networkPrefixOf, isNonPublicIp, type ParsedIp, NETWORK_PREFIX_BITS } from './ip-address';
export { hashAddress, hashIp, hashNetwork, InvalidIpAddressError, type IpHashes } from './ip-hash';
export { resolveClientIp, type ClientAddressSource } from './client-ip';
export { loadOrCreateIpHashKey, IP_HASH_KEY_FILE } from './ip-hash-key';
