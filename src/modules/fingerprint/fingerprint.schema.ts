import { z } from 'zod';
import { FINGERPRINT_FIELDS, FINGERPRINT_HASH_PATTERN, type FingerprintData, type FingerprintField } from '../../shared/fingerprint';

/**
 * The longest value accepted for one field. The collector never sends more than
 * FINGERPRINT_LIMITS.fieldMaxLength (512); the margin keeps a newer collector working
 * while still bounding what a forged request can make us hash and store.
 */
export const FINGERPRINT_FIELD_MAX_LENGTH = 2000;

const field = z.string().min(1).max(FINGERPRINT_FIELD_MAX_LENGTH);

/** Exactly the nine fingerprint fields, each a non-empty bounded string; extra keys are refused. */
export const fingerprintDataSchema = z.strictObject(
  Object.fromEntries(FINGERPRINT_FIELDS.map((name) => [name, field])) as Record<FingerprintField, typeof field>,
) satisfies z.ZodType<FingerprintData>;

/** 32 lower-case hex characters. */
export const fingerprintHashSchema = z.string().regex(FINGERPRINT_HASH_PATTERN, 'must be 32 lower-case hex characters');

export type { FingerprintData, FingerprintField };
