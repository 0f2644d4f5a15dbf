import { useMemo } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import { apiRequest, fetcher } from '@/lib/api';

/** A staff account, plus isOwner so the owner's controls can be hidden. */
export interface StaffAccount {
  id: number;
  username: string;
  isSuperAdmin: boolean;
  isOwner: boolean;
  discordId: string | null;
}

export interface NewStaffAccount {
  username: string;
  password: string;
}

export const staffListKey = '/api/admin/staff';

export function fetchStaffList(): Promise<StaffAccount[]> {
  return fetcher<StaffAccount[]>(staffListKey);
}

/** GET /api/admin/staff (super admins only: pass enabled=false for others, so no 403 is asked for). */
export function useStaffList(enabled: boolean) {
  return useSWR<StaffAccount[]>(enabled ? staffListKey : null, fetchStaffList, { revalidateOnMount: true });
}

/** Every staff change refreshes the staff list. */
export function useStaffActions() {
  const { mutate } = useSWRConfig();
  return useMemo(() => {
    const refresh = () => mutate(staffListKey);
    return {
      /** POST /api/admin/create-staff: the Create Staff page (any staff). */
      createStaffAccount: async (account: NewStaffAccount) => {
        await apiRequest('POST', '/api/admin/create-staff', account);
        await refresh();
      },
      /** POST /api/admin/staff: the Staff Management card (super admins). */
      createManagedStaff: async (account: NewStaffAccount) => {
        await apiRequest('POST', staffListKey, account);
        await refresh();
      },
      changePassword: async (id: number, newPassword: string) => {
        await apiRequest('PATCH', `${staffListKey}/${id}/password`, { newPassword });
        await refresh();
      },
      /** Sends the opposite of the current value. */
      toggleSuperAdmin: async (account: Pick<StaffAccount, 'id' | 'isSuperAdmin'>) => {
        await apiRequest('PATCH', `${staffListKey}/${account.id}/super-admin`, { isSuperAdmin: !account.isSuperAdmin });
        await refresh();
      },
      deleteStaff: async (id: number) => {
        await apiRequest('DELETE', `${staffListKey}/${id}`);
        await refresh();
      },
    };
  }, [mutate]);
}

/** POST /api/admin/me/password: the signed-in account's own password (the current one is checked; other sessions end). */
export function changeOwnPassword(currentPassword: string, newPassword: string): Promise<unknown> {
  return apiRequest('POST', '/api/admin/me/password', { currentPassword, newPassword });
}
