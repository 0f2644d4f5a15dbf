import { useId, useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PageShell } from '@/components/ui/page-shell';
import { useAuditLog, type AuditChain, type AuditEntry, type AuditFilters } from '../api/audit';
import { AdminPageHeader } from '../components/admin-page-header';
import { SessionProblem } from '../components/session-problem';
import { formatDateTime } from '../format-date';
import { useAdminSession } from '../hooks/use-admin-session';
import { useSignInRedirect } from '../hooks/use-sign-in-redirect';
import { LoadError } from '@/components/ui/load-error';

const noFilters: AuditFilters = { actor: '', action: '', target: '' };

/** /admin/audit (super admins, beyond the spec): every staff and system action, newest first, with the hash chain's verdict. */
export default function AuditLogPage() {
  const { session, isSuperAdmin, failed: sessionFailed, retry: retrySession } = useAdminSession();
  const [draft, setDraft] = useState<AuditFilters>(noFilters);
  const [filters, setFilters] = useState<AuditFilters>(noFilters);
  const { data: pages, error, size, setSize, mutate } = useAuditLog(filters, isSuperAdmin);
  useSignInRedirect(error);
  const ids = { actor: useId(), action: useId(), target: useId() };

  const entries = pages?.flatMap((page) => page.entries) ?? [];
  const chain = pages?.[0]?.chain;
  const hasMore = Boolean(pages?.at(-1)?.nextCursor);
  const loadingMore = pages !== undefined && size > pages.length && !error;

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
  };
  const clear = () => {
    setDraft(noFilters);
    setFilters(noFilters);
  };

  return (
    <PageShell width="xl">
      <AdminPageHeader title="Audit Log" subtitle="Every staff and system action, newest first" back actions={chain ? <ChainIndicator chain={chain} /> : null} />
      {sessionFailed ? (
        <SessionProblem onRetry={retrySession} />
      ) : session && !isSuperAdmin ? (
        <Alert variant="warning" title="Super admin access required">
          Only super admins can read the audit log.
        </Alert>
      ) : (
        <div className="flex flex-col gap-6">
          <form className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_1fr_auto]" onSubmit={apply} aria-label="Filter the audit log">
            <div className="flex flex-col gap-1">
              <Label htmlFor={ids.actor}>Actor</Label>
              <Input id={ids.actor} placeholder="Staff name or ID" value={draft.actor} maxLength={100} onChange={(event) => setDraft({ ...draft, actor: event.target.value })} />
            </div>
            <div className="flex flex-col gap-1">
              <Label htmlFor={ids.action}>Action</Label>
              <Input id={ids.action} placeholder="e.g. member.note_add" value={draft.action} maxLength={100} onChange={(event) => setDraft({ ...draft, action: event.target.value })} />
            </div>
            <div className="flex flex-col gap-1">
              <Label htmlFor={ids.target}>Target</Label>
              <Input id={ids.target} placeholder="Discord ID or staff ID" value={draft.target} maxLength={100} onChange={(event) => setDraft({ ...draft, target: event.target.value })} />
            </div>
            <div className="flex items-end gap-2">
              <Button type="submit">Filter</Button>
              <Button type="button" variant="ghost" onClick={clear}>
                Clear
              </Button>
            </div>
          </form>

          {pages === undefined && error ? (
            <LoadError title="Could not load the audit log" onRetry={() => void mutate()} />
          ) : pages === undefined ? (
            <p role="status" className="py-10 text-center text-muted">
              Loading...
            </p>
          ) : entries.length === 0 ? (
            <p className="py-10 text-center text-muted">No audit entries found</p>
          ) : (
            <>
              <ol className="flex flex-col gap-2" aria-label="Audit entries">
                {entries.map((entry) => (
                  <AuditRow key={entry.id} entry={entry} />
                ))}
              </ol>
              {hasMore ? (
                <div className="flex justify-center">
                  <Button variant="secondary" loading={loadingMore} onClick={() => void setSize(size + 1)}>
                    {loadingMore ? 'Loading more...' : 'Load more'}
                  </Button>
                </div>
              ) : null}
            </>
          )}
        </div>
      )}
    </PageShell>
  );
}

function ChainIndicator({ chain }: { chain: AuditChain }) {
  return chain.verified ? (
    <Badge color="green" title={`${chain.checked} entries checked`}>
      Chain verified
    </Badge>
  ) : (
    <Badge color="red" title="An entry no longer matches its hash: the log was altered">
      Chain broken at #{chain.brokenAt}
    </Badge>
  );
}

function actorText(entry: AuditEntry): string {
  if (entry.actorName) return `${entry.actorName}${entry.actorType === 'staff' ? '' : ` (${entry.actorType})`}`;
  return entry.actorId ? `${entry.actorType} ${entry.actorId}` : entry.actorType;
}

function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  const details = detailsText(entry.details ?? {});
  return (
    <li className="rounded-lg border border-border bg-surface">
      <div className="flex flex-col gap-1 p-3 text-sm sm:p-4">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <span className="font-mono text-xs text-muted">#{entry.id}</span>
            <time dateTime={entry.at} className="text-xs text-muted">
              {formatDateTime(entry.at)}
            </time>
            <code className="font-semibold text-heading">{entry.action}</code>
          </div>
          <p>
            <span className="text-muted">by</span> <span className="font-medium">{actorText(entry)}</span>
            {entry.targetId ? (
              <>
                {' '}
                <span className="text-muted">on</span> {entry.targetType ? `${entry.targetType} ` : ''}
                <span className="font-mono">{entry.targetId}</span>
              </>
            ) : null}
          </p>
          {details ? <p className="text-xs break-all text-muted">{details}</p> : null}
      </div>
    </li>
  );
}
