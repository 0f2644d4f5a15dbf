import useSWR from 'swr';
import type { MemberStanding } from '@shared/member-badges';

/** GET /api/verification/vpn-status */
export interface VpnStatus {
  vpnDetected: boolean;
  vpnProvider?: string | null;
  /** the member's standing: a certain alt sees the denial, never the success text */
  standing?: MemberStanding;
}

/** GET /api/discord/verification-channel: discord://-/channels/G/C and https://discord.com/channels/G/C (sandbox: an http page). */
export interface VerificationChannelLinks {
  appUrl?: string | null;
  webUrl?: string | null;
}

/** GET /api/verification/admission: a server rule (lockdown, account age) that applied to the visitor. */
export interface AdmissionStatus {
  gate: { action: 'limited' | 'review'; reason: string | null; message: string | null } | null;
}

export const vpnStatusKey = '/api/verification/vpn-status';
export const admissionKey = '/api/verification/admission';

export function useAdmission() {
  return useSWR<AdmissionStatus>(admissionKey);
}
export const verificationChannelKey = '/api/discord/verification-channel';

export function useVpnStatus() {
  return useSWR<VpnStatus>(vpnStatusKey);
}

export function useVerificationChannel() {
  return useSWR<VerificationChannelLinks>(verificationChannelKey);
}
