import useSWR from 'swr';

/** GET /api/verification/vpn-status */
export interface VpnStatus {
  vpnDetected: boolean;
  vpnProvider?: string | null;
}

/** GET /api/discord/verification-channel: discord://-/channels/G/C and https://discord.com/channels/G/C (sandbox: an http page). */
export interface VerificationChannelLinks {
  appUrl?: string | null;
  webUrl?: string | null;
}

export const vpnStatusKey = '/api/verification/vpn-status';
export const verificationChannelKey = '/api/discord/verification-channel';

export function useVpnStatus() {
  return useSWR<VpnStatus>(vpnStatusKey);
}

export function useVerificationChannel() {
  return useSWR<VerificationChannelLinks>(verificationChannelKey);
}
