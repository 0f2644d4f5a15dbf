import { useMemo } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import { apiRequest, fetcher } from '@/lib/api';
import { userDetailKey } from './members';

/**
 * One network staff marked as shared (household, school, carrier NAT): IP-only and same-network
 * matches from it do not count as alt evidence at the next verification (docs/behaviour.md#alt-detection).
 * GET /api/admin/shared-networks.
 */
export interface SharedNetwork {
  /** the first 12 characters of the network hash: tells networks apart, never matches them */
  networkHash: string;
  label: string | null;
  /** the staff member (or Discord staff) who marked it */
  markedBy: string | null;
  createdAt: string;
  /** member records currently on this network */
  members: number;
  /**
   * A member on the network, through whom it can be unmarked (networks are always named through a
   * member). Not every server version sends it; without it the dashboard cannot unmark the network.
   */
  member?: { discordId: string; username: string } | null;
}

/** POST/DELETE /api/admin/users/:discordId/shared-network. */
export interface SharedNetworkChange {
  success: true;
  sharedNetwork: { marked: boolean; label: string | null };
  /** member records on the network, the one acted on included */
  members: number;
}

export const sharedNetworksKey = '/api/admin/shared-networks';
/** The server's limit on a label ('school', 'family'). */
export const SHARED_NETWORK_LABEL_MAX = 100;

/** The dashboard's panel; refetched whenever the dashboard opens. */
export function useSharedNetworks() {
  return useSWR<SharedNetwork[]>(sharedNetworksKey, (path: string) => fetcher<SharedNetwork[]>(path), { revalidateOnMount: true });
}

/** Marking and unmarking through a member; each refreshes the member's detail and the panel's list. */
export function useSharedNetworkActions() {
  const { mutate } = useSWRConfig();
  return useMemo(() => {
    const refresh = (discordId: string) => Promise.all([mutate(userDetailKey(discordId)), mutate(sharedNetworksKey)]);
    return {
      /** An empty label is sent as none. */
      markSharedNetwork: async (discordId: string, label: string) => {
        const trimmed = label.trim();
        const change = await apiRequest<SharedNetworkChange>(
          'POST',
          `${userDetailKey(discordId)}/shared-network`,
          trimmed ? { label: trimmed } : {},
        );
        await refresh(discordId);
        return change;
      },
      unmarkSharedNetwork: async (discordId: string) => {
        const change = await apiRequest<SharedNetworkChange>('DELETE', `${userDetailKey(discordId)}/shared-network`);
        await refresh(discordId);
        return change;
      },
    };
  }, [mutate]);
}

/** '3 member records' */
export function memberRecordCount(members: number): string {
  return `${members.toLocaleString('en-US')} member record${members === 1 ? '' : 's'}`;
}
