import useSWR from 'swr';
import { DEFAULT_RETENTION_DAYS } from '@shared/policy';

/** GET /api/config. `sandbox` and `sandboxDiscordUrl` are present when the server runs in sandbox mode. */
export interface PublicConfig {
  dataRetentionDays: number;
  sandbox?: boolean;
  sandboxDiscordUrl?: string;
  /** the Discord server a visitor is joining; absent until the server has read it from Discord */
  server?: { name: string; iconUrl: string | null };
}

export const configKey = '/api/config';

export function useConfig() {
  return useSWR<PublicConfig>(configKey);
}

/** The retention period to state on a page: the server's value, or the spec's default while loading. */
export function useRetentionDays(): number {
  const { data } = useConfig();
  return typeof data?.dataRetentionDays === 'number' ? data.dataRetentionDays : DEFAULT_RETENTION_DAYS;
}

/** The Discord server a visitor is joining, once the server knows it. */
export function useServerIdentity(): PublicConfig['server'] {
  return useConfig().data?.server;
}
