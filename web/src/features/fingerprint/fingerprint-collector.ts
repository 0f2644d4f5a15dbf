import { fingerprintHashFromDigest, fingerprintPreimage, totalFailureFingerprint, type FingerprintData } from '@shared/fingerprint';
import { sha256Hex } from '@/lib/sha256';
import {
  collectAudio,
  collectCanvas,
  collectFonts,
  collectWebgl,
  describeHardware,
  describeLanguage,
  describePlatform,
  describeScreen,
  describeTimezone,
} from './fingerprint-components';

export interface CollectedFingerprint {
  fingerprintData: FingerprintData;
  /** First 32 hex characters of SHA-256 over fingerprintPreimage(fingerprintData). */
  fingerprintHash: string;
}

/** Name of the performance.measure entry each collection leaves behind (the benchmark reads it). */
export const FINGERPRINT_MEASURE = 'gatekeeper:fingerprint';

/** The hash the server recomputes: src/shared/fingerprint.ts defines the field order and the join. */
export async function hashFingerprint(data: FingerprintData): Promise<string> {
  return fingerprintHashFromDigest(await sha256Hex(fingerprintPreimage(data)));
}

/** The fingerprint fields; every field 'error' when collection fails altogether. */
export async function collectFingerprintData(): Promise<FingerprintData> {
  try {
    const [canvas, audio] = await Promise.all([collectCanvas(), collectAudio()]);
    return {
      canvas,
      webgl: collectWebgl(),
      audio,
      screen: describeScreen(),
      fonts: collectFonts(),
      timezone: describeTimezone(),
      language: describeLanguage(),
      platform: describePlatform(),
      hardware: describeHardware(),
    };
  } catch {
    return totalFailureFingerprint();
  }
}

/** Collects the device fingerprint and its hash. Never rejects. Takes tens of milliseconds in Chromium. */
export async function collectFingerprint(): Promise<CollectedFingerprint> {
  const startedAt = typeof performance !== 'undefined' ? performance.now() : 0;
  const fingerprintData = await collectFingerprintData();
  const fingerprintHash = await hashFingerprint(fingerprintData);
  try {
    performance.measure(FINGERPRINT_MEASURE, { start: startedAt });
  } catch {
    // No User Timing Level 3 here: timing is optional.
  }
  return { fingerprintData, fingerprintHash };
}
