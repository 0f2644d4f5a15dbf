import type { BadgeSubject } from '../member-badges';

/**
 * The badge fields of an ordinary member: verified once, rules confirmed, no alt, no VPN.
 * Server and dashboard tests both start from it and change only what their case is about.
 */
export function buildBadgeSubject(overrides: Partial<BadgeSubject> = {}): BadgeSubject {
  return {
    status: 'verified',
    rulesConfirmed: true,
    manualAltStatus: null,
    isLinkedAsAlt: false,
    altsFound: 0,
    usedVpn: false,
    vpnAttempts: 0,
    verificationCount: 1,
    ...overrides,
  };
}
