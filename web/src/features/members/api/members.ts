import { useCallback, useMemo } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import useSWRInfinite, { type SWRInfiniteKeyLoader } from 'swr/infinite';
import {
  type DiscordUserLookupResult,
  type ManualEntryPayload,
  type UserDetail,
  type UserListPage,
  type AltConfidence,
  type AltDismissal,
  type AltEntry,
  type AdminNoteView,
  type AttemptSummary,
  type FingerprintComponent,
  type FingerprintComponents,
  type UserRecord,
  FINGERPRINT_COMPONENTS,
} from '@shared/admin-api';
import type { ManualAltStatus, MemberFilter } from '@shared/member-badges';
import { apiRequest, fetcher } from '@/lib/api';

export type {
  AltConfidence,
  AltDismissal,
  AltEntry,
  AdminNoteView as AdminNote,
  AttemptSummary,
  DiscordUserLookupResult as DiscordUserLookup,
  FingerprintComponent,
  FingerprintComponents,
  ManualEntryPayload,
  UserDetail,
  UserListPage,
  UserRecord,
};
export { FINGERPRINT_COMPONENTS };

export const USERS_PATH = '/api/admin/users';
/** Fills whole rows of the 1 → 2 → 3 → 4 column grid. */
export const USERS_PAGE_SIZE = 48;

// ---- list -------------------------------------------------------------------------------------

/** The SWR infinite key of the dashboard list: one URL per page, the next page by the previous page's cursor. */
export function userListKey(search: string, filter: MemberFilter): SWRInfiniteKeyLoader<UserListPage, string | null> {
  const needle = search.trim();
  return (pageIndex, previousPage) => {
    if (pageIndex > 0 && !previousPage?.nextCursor) return null;
    const params = new URLSearchParams();
    if (needle) params.set('search', needle);
    params.set('filter', filter);
    params.set('limit', String(USERS_PAGE_SIZE));
    if (pageIndex > 0 && previousPage?.nextCursor) params.set('cursor', previousPage.nextCursor);
    return `${USERS_PATH}?${params.toString()}`;
  };
}

/** The dashboard list, filtered and searched on the server; refetched whenever the dashboard opens. */
export function useUserList(search: string, filter: MemberFilter) {
  return useSWRInfinite<UserListPage>(userListKey(search, filter), (path: string) => fetcher<UserListPage>(path), {
    revalidateOnMount: true,
    keepPreviousData: true,
  });
}

const INFINITE_USERS_PREFIX = `$inf$${USERS_PATH}?`;

/** Revalidates every cached dashboard list (all searches and filters), e.g. after a manual entry. */
export function useRevalidateUserLists(): () => Promise<unknown> {
  const { cache, mutate } = useSWRConfig();
  return useCallback(
    () => Promise.all([...cache.keys()].filter((key) => key.startsWith(INFINITE_USERS_PREFIX)).map((key) => mutate(key))),
    [cache, mutate],
  );
}

// ---- detail -----------------------------------------------------------------------------------

export function userDetailKey(discordId: string): string {
  return `${USERS_PATH}/${encodeURIComponent(discordId)}`;
}

export function useUserDetail(discordId: string | undefined) {
  return useSWR<UserDetail>(discordId ? userDetailKey(discordId) : null, (path: string) => fetcher<UserDetail>(path), {
    revalidateOnMount: true,
  });
}

// ---- mutations --------------------------------------------------------------------------------

/** POST /api/privacy/delete: the dashboard's delete (any staff). */
export function deleteVerificationRecord(discordId: string): Promise<unknown> {
  return apiRequest('POST', '/api/privacy/delete', { discordId });
}

/** The detail page's actions; each refreshes the detail (and the lists where badges change). */
export function useUserActions(discordId: string) {
  const { mutate } = useSWRConfig();
  const revalidateLists = useRevalidateUserLists();
  return useMemo(() => {
    const key = userDetailKey(discordId);
    return {
      saveNote: async (note: string) => {
        await apiRequest('POST', `${key}/notes`, { note });
        await mutate(key);
      },
      setAltStatus: async (manualAltStatus: ManualAltStatus | null) => {
        await apiRequest('PATCH', `${key}/alt-status`, { manualAltStatus });
        await mutate(key);
        void revalidateLists();
      },
      manuallyVerify: async () => {
        await apiRequest('POST', `${key}/manual-verify`);
        await mutate(key);
        void revalidateLists();
      },
      /** "Not the same person": the link stops counting for both members, so both pages and the lists are refreshed. */
      dismissAltLink: async (linkId: number, otherDiscordId: string, reason?: string) => {
        await apiRequest('POST', `${key}/alt-links/${linkId}/dismiss`, reason ? { reason } : {});
        await Promise.all([mutate(key), mutate(userDetailKey(otherDiscordId))]);
        void revalidateLists();
      },
      reopenAltLink: async (linkId: number, otherDiscordId: string) => {
        await apiRequest('POST', `${key}/alt-links/${linkId}/reopen`);
        await Promise.all([mutate(key), mutate(userDetailKey(otherDiscordId))]);
        void revalidateLists();
      },
      /** DELETE (super admin). The cached detail is dropped, not refetched: it is gone. */
      deleteUser: async () => {
        await apiRequest('DELETE', key);
        await mutate(key, undefined, { revalidate: false });
        void revalidateLists();
      },
    };
  }, [discordId, mutate, revalidateLists]);
}

/** POST /api/admin/manual-entry; the dashboard lists are refreshed. */
export function useCreateManualEntry() {
  const revalidateLists = useRevalidateUserLists();
  return useCallback(
    async (payload: ManualEntryPayload) => {
      const result = await apiRequest('POST', '/api/admin/manual-entry', payload);
      await revalidateLists();
      return result;
    },
    [revalidateLists],
  );
}

/** GET /api/discord/user/:discordId through the bot: fills the Manual Entry form. */
export function fetchDiscordUser(discordId: string): Promise<DiscordUserLookupResult> {
  return apiRequest<DiscordUserLookupResult>('GET', `/api/discord/user/${encodeURIComponent(discordId)}`);
}
