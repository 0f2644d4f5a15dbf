import type { AltConfidence, FingerprintComponent } from '../../api/members';

export const COMPONENT_LABELS: Record<FingerprintComponent, string> = {
  canvas: 'Canvas',
  webgl: 'WebGL',
  audio: 'Audio',
  fonts: 'Fonts',
  screen: 'Screen',
  timezone: 'Timezone',
  language: 'Language',
  platform: 'Platform',
};

/** The tiers that count as alts; possible links are listed apart, as shared evidence (WeakEvidenceSection). */
export const CONFIDENCE_GROUPS: ReadonlyArray<{ confidence: AltConfidence; title: string }> = [
  { confidence: 'certain', title: 'Certain Alts' },
  { confidence: 'medium', title: 'Medium-Confidence Alts' },
];

export type ComponentVerdict = 'matched' | 'different' | 'unavailable';

/** true = matched, false = different, absent = data unavailable. */
export function componentVerdict(value: boolean | undefined): ComponentVerdict {
  if (value === true) return 'matched';
  if (value === false) return 'different';
  return 'unavailable';
}

/** The detection method in words; the server sends ip, fingerprint, both, network, browser or manual. */
export function describeDetectionMethod(method: string): string {
  const text = method.toLowerCase();
  if (text.includes('manual')) return 'Manual (linked by staff)';
  if (text.includes('browser')) return 'Same browser profile (browser token)';
  if (text.includes('both') || (text.includes('ip') && text.includes('fingerprint'))) return 'IP address and device fingerprint';
  if (text.includes('fingerprint')) return 'Device fingerprint';
  if (text.includes('network')) return 'Same network and similar device';
  if (text.includes('ip')) return 'IP address';
  return method || 'Unknown';
}
