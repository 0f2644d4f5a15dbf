import { useCallback } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import { apiRequest } from '@/lib/api';
import type { AppealListStatus, AppealOutcome, AppealQueue, MemberAppealView, StaffAppealView } from '@shared/appeals';

export type { AppealListStatus, AppealOutcome, AppealQueue, MemberAppealView, StaffAppealView };

export const appealsKey = '/api/admin/appeals';
export const appealCountKey = '/api/admin/appeals/count';

const decidedKey = `${appealsKey}?status=decided`;

/** The open appeals, oldest first, or the decided ones, newest decided first. */
export function useAppealQueue(status: AppealListStatus = 'open') {
  return useSWR<AppealQueue>(status === 'open' ? appealsKey : decidedKey);
}

/** What approving would do now; fetched when the confirmation opens. */
export function useApprovalPreview(id: number, enabled: boolean) {
  return useSWR<AppealOutcome>(enabled ? `${appealsKey}/${id}/preview` : null, { revalidateOnMount: true });
}

export const memberAppealsKey = (discordId: string) => `/api/admin/users/${discordId}/appeals`;

/** A member's appeals for their page, newest first. */
export function useMemberAppeals(discordId: string) {
  return useSWR<{ appeals: MemberAppealView[] }>(memberAppealsKey(discordId), { revalidateOnMount: true });
}

/** The open count for the dashboard's header, refreshed every minute while it is open. */
export function useOpenAppealCount() {
  return useSWR<{ open: number }>(appealCountKey, { refreshInterval: 60_000, revalidateOnMount: true });
}

/** Approve and reject; both refresh the queue and the header's count afterwards. */
export function useAppealDecisions() {
  const { mutate } = useSWRConfig();
  const refresh = useCallback(() => Promise.all([mutate(appealsKey), mutate(decidedKey), mutate(appealCountKey)]), [mutate]);
  const approve = useCallback(
    /** answers what happens next (the member may have left or been removed), in the server's words */
    async (id: number): Promise<{ next?: string; outcome?: AppealOutcome }> => {
      const answer = await apiRequest<{ success: boolean; next?: string; outcome?: AppealOutcome }>(
        'POST',
        `${appealsKey}/${id}/approve`,
        {},
      );
      await refresh();
      return { next: answer?.next, outcome: answer?.outcome };
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
