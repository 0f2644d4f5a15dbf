import useSWR, { useSWRConfig, type Cache } from 'swr';
import { apiRequest, fetcher } from '@/lib/api';

/** GET /api/admin/session: who is signed in (401 without a staff session). */
export interface StaffSession {
  username: string;
  staffId: number;
  isSuperAdmin: boolean;
  isOwner: boolean;
}

export const staffSessionKey = '/api/admin/session';

export function fetchStaffSession(): Promise<StaffSession> {
  return fetcher<StaffSession>(staffSessionKey);
}

export function useStaffSession() {
  return useSWR<StaffSession>(staffSessionKey, fetchStaffSession);
}

export interface LoginCredentials {
  username: string;
  password: string;
}

/** POST /api/staff/login → {success: true}; 401 {success: false, error: 'Invalid credentials'}; 429 when throttled. */
export function loginStaff(credentials: LoginCredentials): Promise<{ success?: boolean }> {
  return apiRequest<{ success?: boolean }>('POST', '/api/staff/login', credentials);
}

/** POST /api/staff/logout (no body). */
export function logoutStaff(): Promise<unknown> {
  return apiRequest('POST', '/api/staff/logout');
}

/**
 * Forgets every cached staff response (session, lists, details), including the infinite lists
 * that a filtered `mutate` skips: the next staff member to sign in must not see the last one's data.
 */
export function forgetStaffData(cache: Cache): void {
  for (const key of [...cache.keys()]) {
    if (key.includes('/api/admin/') || key.includes('/api/discord/user/')) cache.delete(key);
  }
}

/** Login and logout, each ending with a clean staff cache. */
export function useStaffAuth() {
  const { cache } = useSWRConfig();
  return {
    login: async (credentials: LoginCredentials) => {
      const result = await loginStaff(credentials);
      forgetStaffData(cache);
      return result;
    },
    logout: async () => {
      try {
        await logoutStaff();
      } finally {
        forgetStaffData(cache);
      }
    },
  };
}
