import useSWRInfinite, { type SWRInfiniteKeyLoader } from 'swr/infinite';
import { fetcher } from '@/lib/api';
import type { AuditEntryView } from '@shared/audit-sentence';

/** One entry with the names its sentence uses (src/shared/audit-sentence.ts). */
export type AuditEntry = AuditEntryView;

export interface AuditChain {
  verified: boolean;
  checked: number;
  brokenAt: number | null;
}

/** GET /api/admin/audit (super admins): newest first; `nextCursor` is the `before` of the next page. */
export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: number | null;
  chain: AuditChain;
}

/** The audit page's filters: a staff name or ID, an action code, a member's Discord ID, and a first and last day (YYYY-MM-DD). */
export interface AuditFilters {
  actor: string;
  action: string;
  member: string;
  from: string;
  to: string;
}

export const AUDIT_FILTER_NAMES = ['actor', 'action', 'member', 'from', 'to'] as const satisfies readonly (keyof AuditFilters)[];

export const AUDIT_PATH = '/api/admin/audit';
export const AUDIT_PAGE_SIZE = 50;

export function auditLogKey(filters: AuditFilters): SWRInfiniteKeyLoader<AuditPage, string | null> {
  return (pageIndex, previousPage) => {
    if (pageIndex > 0 && !previousPage?.nextCursor) return null;
    const params = new URLSearchParams();
    for (const name of AUDIT_FILTER_NAMES) {
      const value = filters[name].trim();
      if (value) params.set(name, value);
    }
    params.set('limit', String(AUDIT_PAGE_SIZE));
    if (pageIndex > 0 && previousPage?.nextCursor) params.set('before', String(previousPage.nextCursor));
    return `${AUDIT_PATH}?${params.toString()}`;
  };
}

/** The log, page by page; pass enabled=false until the session says super admin. */
export function useAuditLog(filters: AuditFilters, enabled: boolean) {
  const key = auditLogKey(filters);
  return useSWRInfinite<AuditPage>(
    (index, previous: AuditPage | null) => (enabled ? key(index, previous) : null),
    (path: string) => fetcher<AuditPage>(path),
    {
      revalidateOnMount: true,
    },
  );
}
