import crypto from 'node:crypto';
import { isFingerprintFallback, type FingerprintData, type FingerprintField } from '../../shared/fingerprint';

/**
 * One hash per fingerprint component, stored on the verification attempt so alt
 * detection can compare devices component by component (docs/behaviour.md#alt-detection) and find
 * candidates by the high-entropy ones. A component holding a fallback marker
 * ('canvas-unavailable', 'no-fonts', 'error', …) carries no identity: two browsers
 * without WebGL are not the same device. Such components are stored as null ("absent").
 */
export interface FingerprintComponentHashes {
  canvasHash: string | null;
  webglHash: string | null;
  audioHash: string | null;
  fontsHash: string | null;
  screenHash: string | null;
  timezoneHash: string | null;
  languageHash: string | null;
  platformHash: string | null;
  hardwareHash: string | null;
}

/** The column of FingerprintComponentHashes for each field. */
export const COMPONENT_HASH_KEYS = {
  canvas: 'canvasHash',
  webgl: 'webglHash',
  audio: 'audioHash',
  fonts: 'fontsHash',
  screen: 'screenHash',
  timezone: 'timezoneHash',
  language: 'languageHash',
  platform: 'platformHash',
  hardware: 'hardwareHash',
} as const satisfies Record<FingerprintField, keyof FingerprintComponentHashes>;

const COMPONENT_HASH_HEX_LENGTH = 32;

/** Markers beyond the shared list that also mean "no data" (a newer collector may add e.g. 'screen-error'). */
const GENERIC_MARKER = /^[a-z]+-(unavailable|error)$/;
const EMPTY_VALUES = new Set(['unknown', 'undefined', 'null', 'n/a', 'none']);

/** True when the value says the component could not be read. */
export function isAbsentComponent(value: string): boolean {
  const v = value.trim().toLowerCase();
  return v === '' || isFingerprintFallback(v) || GENERIC_MARKER.test(v) || EMPTY_VALUES.has(v);
}

function hashComponent(field: FingerprintField, value: string): string | null {
  if (isAbsentComponent(value)) return null;
  // the field name separates domains, so equal values of two fields never share a hash
  return crypto.createHash('sha256').update(`${field}\u0000${value}`, 'utf8').digest('hex').slice(0, COMPONENT_HASH_HEX_LENGTH);
}

export function hashFingerprintComponents(data: FingerprintData): FingerprintComponentHashes {
  const hashes = {} as FingerprintComponentHashes;
  for (const [field, key] of Object.entries(COMPONENT_HASH_KEYS) as [FingerprintField, keyof FingerprintComponentHashes][]) {
    hashes[key] = hashComponent(field, data[field]);
  }
  return hashes;
}

/** All components absent: what a Limited Access attempt stores (only the Discord ID and username). */
export const NO_COMPONENT_HASHES: Readonly<FingerprintComponentHashes> = Object.freeze({
  canvasHash: null,
  webglHash: null,
  audioHash: null,
  fontsHash: null,
  screenHash: null,
  timezoneHash: null,
  languageHash: null,
  platformHash: null,
  hardwareHash: null,
});
