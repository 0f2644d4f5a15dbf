import useSWR from 'swr';
import { apiRequest, fetcher } from '@/lib/api';

/** The owner's settings as the server applies them (GET/PUT /api/admin/settings). */
export interface OwnerSettings {
  retentionDays: number;
  vpnCheckFailure: 'allow' | 'limited' | 'deny';
  certainAltAction: 'none' | 'kick' | 'ban';
  accountAgeMinDays: number;
  accountAgeAction: 'limited' | 'review';
  raidWindowMinutes: number;
  raidMinVerifications: number;
  raidRateFactor: number;
  raidYoungAccountDays: number;
  raidYoungAccountPercent: number;
  raidSharedEvidencePercent: number;
  autoLockdown: boolean;
  lockdownPauseInvites: boolean;
  lockdownPauseDms: boolean;
  lockdownVerificationLevel: 'off' | 'medium' | 'high' | 'very_high';
  linkedRoles: boolean;
  lockdownAction: 'limited' | 'review';
  verifiedRole: string;
  limitedRole: string;
  unverifiedRole: string;
  staffRole: string;
  verificationChannel: string;
  logsChannel: string;
  /** the role pinged by the #logs posts of a certain alt and of a raid alarm (a role id); null pings nobody */
  alarmPingRole: string | null;
}
export type SettingKey = keyof OwnerSettings;

export interface SettingsResponse {
  version: number;
  updatedAt: string | null;
  /** what applies now: the stored value, else the default */
  settings: OwnerSettings;
  /** from the server's environment variables (or built in) */
  defaults: OwnerSettings;
  /** only the values changed from the dashboard */
  stored: Partial<OwnerSettings>;
}

/** A change: the settings to store; null returns one to its default. */
export type SettingsChange = { [K in SettingKey]?: OwnerSettings[K] | null };

export const settingsKey = '/api/admin/settings';

export function useSettings(enabled: boolean) {
  return useSWR<SettingsResponse>(enabled ? settingsKey : null, (path: string) => fetcher<SettingsResponse>(path));
}

export function saveSettings(change: SettingsChange): Promise<SettingsResponse> {
  return apiRequest<SettingsResponse>('PUT', settingsKey, change);
}
