/**
 * The device-fingerprint contract shared by the browser collector (web/src/features/fingerprint)
 * and the server, which recomputes the hash from the submitted fields and rejects a mismatch.
 * Pure TypeScript: no DOM, no Node APIs, no imports.
 */

/** The fingerprint fields, in the order they are joined for the hash. Never reorder: stored hashes depend on it. */
export const FINGERPRINT_FIELDS = ['canvas', 'webgl', 'audio', 'screen', 'fonts', 'timezone', 'language', 'platform', 'hardware'] as const;

export type FingerprintField = (typeof FINGERPRINT_FIELDS)[number];

/**
 * The components whose hashes are compared between two devices, in the order staff see them.
 * The hardware descriptor (core count, memory) is stored with the attempt but not compared.
 */
export const COMPARED_FINGERPRINT_COMPONENTS = [
  'canvas',
  'webgl',
  'audio',
  'fonts',
  'screen',
  'timezone',
  'language',
  'platform',
] as const satisfies readonly FingerprintField[];

/** Every component hash a verification attempt may hold. */
export const STORED_FINGERPRINT_COMPONENTS = [
  ...COMPARED_FINGERPRINT_COMPONENTS,
  'hardware',
] as const satisfies readonly FingerprintField[];

/** Every field is a string: a hash, a descriptor, or one of the fallback markers below. */
export type FingerprintData = Record<FingerprintField, string>;

/** Joins the field values; '|' never appears inside a value the collector produces. */
export const FINGERPRINT_PREIMAGE_SEPARATOR = '|';

/** fingerprintHash is the first 32 lowercase hex characters of SHA-256 over the preimage. */
export const FINGERPRINT_HASH_LENGTH = 32;
export const FINGERPRINT_HASH_PATTERN = /^[0-9a-f]{32}$/;

/** Truncations (docs/behaviour.md#limits-and-constants), the font probe count, and the longest value the collector ever sends for one field. */
export const FINGERPRINT_LIMITS = {
  webglExtensions: 100,
  audioSample: 50,
  userAgent: 100,
  fontsProbed: 13,
  fieldMaxLength: 512,
} as const;

/** Fallback markers: a field holding one of these carries no data ("absent" for alt scoring). */
export const FINGERPRINT_FALLBACK_MARKERS = [
  'canvas-unavailable',
  'canvas-error',
  'webgl-unavailable',
  'webgl-no-debug',
  'webgl-error',
  'audio-unavailable',
  'audio-error',
  'fonts-unavailable',
  'no-fonts',
] as const;

export type FingerprintFallbackMarker = (typeof FINGERPRINT_FALLBACK_MARKERS)[number];

/** Every field takes this value when collection fails altogether. */
export const FINGERPRINT_TOTAL_FAILURE_MARKER = 'error';

/** The string the hash is computed over: the field values in FINGERPRINT_FIELDS order joined with '|'. */
export function fingerprintPreimage(data: FingerprintData): string {
  return FINGERPRINT_FIELDS.map((field) => data[field]).join(FINGERPRINT_PREIMAGE_SEPARATOR);
}

/** fingerprintHash from the full lowercase hex SHA-256 digest of fingerprintPreimage(data). */
export function fingerprintHashFromDigest(sha256Hex: string): string {
  return sha256Hex.toLowerCase().slice(0, FINGERPRINT_HASH_LENGTH);
}

/** True when the value is a fallback marker or the total-failure marker, i.e. the component is unavailable. */
export function isFingerprintFallback(value: string): boolean {
  return value === FINGERPRINT_TOTAL_FAILURE_MARKER || (FINGERPRINT_FALLBACK_MARKERS as readonly string[]).includes(value);
}

/** The all-'error' fingerprint sent when collection fails altogether. */
export function totalFailureFingerprint(): FingerprintData {
  return Object.fromEntries(FINGERPRINT_FIELDS.map((field) => [field, FINGERPRINT_TOTAL_FAILURE_MARKER])) as FingerprintData;
}
