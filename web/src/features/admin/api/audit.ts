import useSWRInfinite, { type SWRInfiniteKeyLoader } from 'swr/infinite';
import { fetcher } from '@/lib/api';

export interface AuditEntry {
  id: number;
  at: string;
  actorType: 'staff' | 'discord' | 'system' | 'visitor';
  actorId: string | null;
  actorName: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown>;
}

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

export interface AuditFilters {
  actor: string;
  action: string;
  target: string;
}

export const AUDIT_PATH = '/api/admin/audit';
export const AUDIT_PAGE_SIZE = 50;

export function auditLogKey(filters: AuditFilters): SWRInfiniteKeyLoader<AuditPage, string | null> {
  return (pageIndex, previousPage) => {
    if (pageIndex > 0 && !previousPage?.nextCursor) return null;
    const params = new URLSearchParams();
    for (const name of ['actor', 'action', 'target'] as const) {
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
  return useSWRInfinite<AuditPage>((index, previous: AuditPage | null) => (enabled ? key(index, previous) : null), (path: string) => fetcher<AuditPage>(path), {
    revalidateOnMount: true,
  });
}
