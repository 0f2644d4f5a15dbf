import useSWR, { mutate } from 'swr';
import { apiRequest } from '@/lib/api';
import type { AppealQueue } from '../../../../../src/shared/appeals';

export type { AppealQueue, StaffAppealView } from '../../../../../src/shared/appeals';

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

async function refresh() {
  await Promise.all([mutate(appealsKey), mutate(appealCountKey)]);
}

export async function approveAppeal(id: number) {
  await apiRequest('POST', `${appealsKey}/${id}/approve`, {});
  await refresh();
}

export async function rejectAppeal(id: number, reason: string) {
  await apiRequest('POST', `${appealsKey}/${id}/reject`, { reason });
  await refresh();
}
