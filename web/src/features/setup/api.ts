import { useCallback } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import { apiRequest, fetcher, isApiStatus } from '@/lib/api';

/** GET /api/setup-admin: whether the one-time setup is still open (no staff account exists yet). */
export interface SetupAvailability {
  available: boolean;
}

export interface SetupAdminPayload {
  setupCode: string;
  username: string;
  password: string;
}

export interface SetupAdminResult {
  success: boolean;
  username: string;
}

export const setupAvailabilityKey = '/api/setup-admin';

export function fetchSetupAvailability(): Promise<SetupAvailability> {
  return fetcher<SetupAvailability>(setupAvailabilityKey);
}

export function useSetupAvailability() {
  return useSWR<SetupAvailability>(setupAvailabilityKey, fetchSetupAvailability, { revalidateOnMount: true });
}

/**
 * POST /api/setup-admin with the code the server printed at start-up: creates the owner account.
 * 403 wrong code, 409 setup already done, 400 {error, field}. Afterwards (or on a 409) the cached
 * availability is refreshed, so the page then says setup is closed.
 */
export function useCreateOwnerAccount() {
  const { mutate } = useSWRConfig();
  return useCallback(
    async (payload: SetupAdminPayload): Promise<SetupAdminResult> => {
      try {
        const result = await apiRequest<SetupAdminResult>('POST', setupAvailabilityKey, payload);
        void mutate(setupAvailabilityKey, { available: false }, { revalidate: false });
        return result;
      } catch (error) {
        if (isApiStatus(error, 409)) void mutate(setupAvailabilityKey);
        throw error;
      }
    },
    [mutate],
  );
}
