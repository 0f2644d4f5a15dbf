import crypto from 'node:crypto';
import { BadRequest } from '../../errors';
import { fingerprintHashFromDigest, fingerprintPreimage, type FingerprintData } from '../../shared/fingerprint';

/** The hash the browser should have sent: first 32 hex of SHA-256 over the joined fields. */
export function computeFingerprintHash(data: FingerprintData): string {
  return fingerprintHashFromDigest(crypto.createHash('sha256').update(fingerprintPreimage(data), 'utf8').digest('hex'));
}

/** True when `hash` is the hash of `data`. Both must already have passed their schemas. */
export function verifyFingerprint(data: FingerprintData, hash: string): boolean {
  return computeFingerprintHash(data) === hash;
}

/** For the consent route: a mismatch is a 400 on `fingerprintHash`. */
export function assertFingerprintMatches(data: FingerprintData, hash: string): void {
  if (!verifyFingerprint(data, hash)) throw BadRequest('fingerprintHash does not match fingerprintData', 'fingerprintHash');
}
