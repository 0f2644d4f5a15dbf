import { decideVpnOutcome, isVpnVerdict } from './vpn-outcome';
import type { VpnFailurePolicy, VpnVerdict } from './vpn.types';

describe('decideVpnOutcome', () => {
  const rows: [VpnVerdict, VpnFailurePolicy, string][] = [
    ['clean', 'allow', 'verified'],
    ['clean', 'limited', 'verified'],
    ['clean', 'deny', 'verified'],
    ['vpn', 'allow', 'limited_access'],
    ['vpn', 'deny', 'limited_access'],
    ['proxy', 'allow', 'limited_access'],
    ['tor', 'allow', 'limited_access'],
    ['datacenter', 'allow', 'limited_access'],
    ['unknown', 'allow', 'verified'],
    ['unknown', 'limited', 'limited_access'],
    ['unknown', 'deny', 'denied'],
  ];
  it.each(rows)('%s under %s → %s', (verdict, policy, outcome) => {
    expect(decideVpnOutcome({ verdict }, policy)).toBe(outcome);
  });

  it('names the hiding verdicts', () => {
    expect((['clean', 'vpn', 'proxy', 'tor', 'datacenter', 'unknown'] as VpnVerdict[]).filter(isVpnVerdict)).toEqual([
      'vpn',
      'proxy',
      'tor',
      'datacenter',
    ]);
  });
});
