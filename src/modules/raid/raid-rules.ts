import type { RaidReason } from '../../shared/admin-api';

/**
 * The raid alarm's rule. It looks at the verifications of the last window (default ten
 * minutes) and compares their number with the server's own usual pace: the average
 * window of the 24 hours before. With at least the minimum number of verifications in
 * the window, any one of these raises the alarm: the rate at least `rateFactor` times
 * the usual (the usual counts as at least one per window, so a quiet server is not set
 * off by two people), the share of young Discord accounts, or the share of newcomers
 * whose device profile or address another newcomer of the window also has.
 */

export interface RaidPolicy {
  raidWindowMinutes: number;
  raidMinVerifications: number;
  raidRateFactor: number;
  raidYoungAccountPercent: number;
  raidSharedEvidencePercent: number;
}

export interface RaidWindow {
  /** verifications in the window */
  verifications: number;
  /** verifications in the 24 hours before the window */
  previousDay: number;
  /** of the window's verifications: accounts younger than the young-account age */
  young: number;
  /** of the window's verifications: sharing a device profile or an address hash with another member's */
  shared: number;
}

export type { RaidReason };

export interface RaidVerdict {
  raise: boolean;
  reasons: RaidReason[];
  /** the usual count of one window */
  baseline: number;
  youngPercent: number;
  sharedPercent: number;
}

const DAY_MINUTES = 24 * 60;

export function evaluateRaid(window: RaidWindow, policy: RaidPolicy): RaidVerdict {
  const baseline = window.previousDay / (DAY_MINUTES / policy.raidWindowMinutes);
  const percent = (n: number) => (window.verifications === 0 ? 0 : Math.round((n / window.verifications) * 100));
  const youngPercent = percent(window.young);
  const sharedPercent = percent(window.shared);
  const reasons: RaidReason[] = [];
  if (window.verifications >= policy.raidRateFactor * Math.max(baseline, 1)) reasons.push('rate');
  if (youngPercent >= policy.raidYoungAccountPercent) reasons.push('young_accounts');
  if (sharedPercent >= policy.raidSharedEvidencePercent) reasons.push('shared_evidence');
  const raise = window.verifications >= policy.raidMinVerifications && reasons.length > 0;
  return { raise, reasons: raise ? reasons : [], baseline, youngPercent, sharedPercent };
}

/** The log line (logs channel) of a raised alarm, with its numbers. */
export function raidAlarmText(window: RaidWindow, verdict: RaidVerdict, policy: RaidPolicy, lockdownStarted: boolean): string {
  const parts = [
    `${window.verifications} verifications in ${policy.raidWindowMinutes} min (usual ${verdict.baseline.toFixed(1)})`,
    `${verdict.youngPercent}% young accounts`,
    `${verdict.sharedPercent}% sharing a device or address`,
  ];
  return `🚨 Raid alarm: ${parts.join(', ')}.${lockdownStarted ? ' Lockdown switched on automatically.' : ''}`;
}
