import useSWR from 'swr';
import { apiRequest, fetcher } from '@/lib/api';
import type { OwnerSettings, SettingKey } from '@shared/settings-contract';

export type { OwnerSettings, SettingKey };

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
