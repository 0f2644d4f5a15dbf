import type { VpnCheckResult, VpnFailurePolicy, VpnOutcome } from './vpn.types';

const OUTCOME_ON_FAILURE: Record<VpnFailurePolicy, VpnOutcome> = {
  allow: 'verified',
  limited: 'limited_access',
  deny: 'denied',
};

/**
 * The one rule that turns a VPN check into an outcome: a detected VPN, proxy, Tor exit
 * or datacenter address gets Limited Access; an unknown verdict (provider down, no
 * offline signal) follows VPN_CHECK_FAILURE; everything else is verified.
 */
export function decideVpnOutcome(result: Pick<VpnCheckResult, 'verdict'>, policy: VpnFailurePolicy): VpnOutcome {
  switch (result.verdict) {
    case 'vpn':
    case 'proxy':
    case 'tor':
    case 'datacenter':
      return 'limited_access';
    case 'unknown':
      return OUTCOME_ON_FAILURE[policy];
    case 'clean':
      return 'verified';
  }
}

/** True for verdicts that mean "this visitor hides behind something" (the member's usedVpn flag). */
export function isVpnVerdict(verdict: VpnCheckResult['verdict']): boolean {
  return verdict === 'vpn' || verdict === 'proxy' || verdict === 'tor' || verdict === 'datacenter';
}
