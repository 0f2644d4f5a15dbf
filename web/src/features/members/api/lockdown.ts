import useSWR from 'swr';
import { apiRequest, fetcher } from '@/lib/api';
import type { RaidAlarm } from '@shared/admin-api';

export type { RaidAlarm };

/** GET /api/admin/lockdown */
export interface LockdownStatus {
  lockdown: { on: boolean; reason: string | null; since: string | null; by: string | null };
  held: number;
  heldMembers: { discordId: string; username: string; gateReason: string | null; verifiedAt: string }[];
  alarms: RaidAlarm[];
  /** the pause Gatekeeper asked of Discord (invites, DMs, until when) and how its newest call went */
  discordPause: {
    invites: boolean;
    dms: boolean;
    until: string | null;
    requestedAt: string | null;
    call: { status: 'pending' | 'running' | 'done' | 'failed'; error: string | null; at: string } | null;
  };
  /** the server's verification level as the lockdown raised it (Discord's 0-4) and how its newest call went */
  verificationLevel: {
    want: 'raise' | 'restore' | null;
    target: number | null;
    raisedTo: number | null;
    previous: number | null;
    restore: 'restored' | 'changed_by_staff' | null;
    call: { status: 'pending' | 'running' | 'done' | 'failed'; error: string | null } | null;
  };
  /** what a lockdown does, as the owner set it (`raiseVerificationLevel`: the level it raises to, null: left alone) */
  plan: { action: 'limited' | 'review'; pauseInvites: boolean; pauseDms: boolean; raiseVerificationLevel: number | null };
}

export const lockdownKey = '/api/admin/lockdown';

/** Polled every 30 s while the dashboard is open, so an alarm shows without a reload. */
export function useLockdown() {
  return useSWR<LockdownStatus>(lockdownKey, (path: string) => fetcher<LockdownStatus>(path), {
    refreshInterval: 30_000,
    revalidateOnMount: true,
  });
}

export function setLockdown(body: { on: boolean; reason?: string | null; release?: boolean }) {
  return apiRequest<{ success: true; released: number }>('POST', lockdownKey, body);
}

export function releaseHeld() {
  return apiRequest<{ success: true; released: number }>('POST', `${lockdownKey}/release`, {});
}
