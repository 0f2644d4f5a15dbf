import { useCallback } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import { apiRequest } from '@/lib/api';
import type { AppealQueue } from '@shared/appeals';

export type { AppealQueue, StaffAppealView } from '@shared/appeals';

export const appealsKey = '/api/admin/appeals';
export const appealCountKey = '/api/admin/appeals/count';

/** The open appeals, oldest first. */
export function useAppealQueue() {
  return useSWR<AppealQueue>(appealsKey);
}

/** The open count for the dashboard's header, refreshed every minute while it is open. */
export function useOpenAppealCount() {
  return useSWR<{ open: number }>(appealCountKey, { refreshInterval: 60_000, revalidateOnMount: true });
}

/** Approve and reject; both refresh the queue and the header's count afterwards. */
export function useAppealDecisions() {
  const { mutate } = useSWRConfig();
  const refresh = useCallback(() => Promise.all([mutate(appealsKey), mutate(appealCountKey)]), [mutate]);
  const approve = useCallback(
    /** answers what happens next (the member may have left or been removed), in the server's words */
    async (id: number): Promise<string | undefined> => {
      const answer = await apiRequest<{ success: boolean; next?: string }>('POST', `${appealsKey}/${id}/approve`, {});
      await refresh();
      return answer?.next;
    },
    [refresh],
  );
  const reject = useCallback(
    async (id: number, reason: string) => {
      await apiRequest('POST', `${appealsKey}/${id}/reject`, { reason });
      await refresh();
    },
    [refresh],
  );
  return { approve, reject };
}
