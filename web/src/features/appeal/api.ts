import useSWR from 'swr';
import { apiRequest } from '@/lib/api';
import type { VisitorAppealState, VisitorAppealView } from '@shared/appeals';

export type { VisitorAppealState, VisitorAppealView };

/** GET /api/appeal: the signed-in visitor's standing and latest appeal (401 without a sign-in). */
export const appealKey = '/api/appeal';

export function useAppealState() {
  return useSWR<VisitorAppealState>(appealKey);
}

/** POST /api/appeal */
export function fileAppeal(message: string) {
  return apiRequest<{ success: true; appeal: VisitorAppealView }>('POST', appealKey, { message });
}

/** Starts a Discord sign-in that only identifies the visitor, then comes back to /appeal. */
export const APPEAL_SIGN_IN_PATH = '/oauth/appeal';
