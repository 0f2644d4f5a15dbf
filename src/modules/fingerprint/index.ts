export {
  fingerprintDataSchema,
  fingerprintHashSchema,
  FINGERPRINT_FIELD_MAX_LENGTH,
  type FingerprintData,
  type FingerprintField,
} from './fingerprint.schema';
export { computeFingerprintHash, verifyFingerprint, assertFingerprintMatches } from './fingerprint-hash';
export {
  hashFingerprintComponents,
  isAbsentComponent,
  COMPONENT_HASH_KEYS,
  NO_COMPONENT_HASHES,
  type FingerprintComponentHashes,
} from './fingerprint-components';
export { looksStock } from './stock-profile';
