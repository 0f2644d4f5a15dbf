import { useId, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { AUDIT_ACTIONS } from '@shared/audit-actions';
import { auditActionLabel, auditSentence, memberRefText, type AuditMemberRef, type AuditPart } from '@shared/audit-sentence';
import { Alert } from '@/components/ui/alert';
import { Avatar } from '@/components/ui/avatar';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { LoadError } from '@/components/ui/load-error';
import { PageShell } from '@/components/ui/page-shell';
import { SimpleSelect } from '@/components/ui/select';
import { apiErrorMessage } from '@/lib/api';
import { AUDIT_FILTER_NAMES, useAuditLog, type AuditChain, type AuditEntry, type AuditFilters } from '../api/audit';
import { AdminPageHeader, formatDateTime, SessionProblem, useAdminSession, useSignInRedirect } from '@/features/admin-shell';

const noFilters: AuditFilters = { actor: '', action: '', member: '', from: '', to: '' };
/** Radix Select values cannot be '': "every action" is this sentinel, sent as no filter */
const ANY_ACTION = 'any';
const actionOptions = [
  { value: ANY_ACTION, label: 'Every action' },
  ...AUDIT_ACTIONS.map((action) => ({ value: action, label: auditActionLabel(action) })),
];

/** The filters a link opened the page with (a member page's "Audit log" link sets ?member=). */
function filtersFromUrl(params: URLSearchParams): AuditFilters {
  const filters = { ...noFilters };
  for (const name of AUDIT_FILTER_NAMES) filters[name] = params.get(name) ?? '';
  return filters;
}

/** /admin/audit (super admins, beyond the spec): every staff and system action as a sentence with names, newest first, with the hash chain's verdict. */
export default function AuditLogPage() {
  const { session, isSuperAdmin, failed: sessionFailed, retry: retrySession } = useAdminSession();
  const [searchParams, setSearchParams] = useSearchParams();
  const [draft, setDraft] = useState<AuditFilters>(() => filtersFromUrl(searchParams));
  const filters = filtersFromUrl(searchParams);
  const { data: pages, error, size, setSize, mutate } = useAuditLog(filters, isSuperAdmin);
  useSignInRedirect(error);
  const ids = { actor: useId(), action: useId(), member: useId(), from: useId(), to: useId() };

  const entries = pages?.flatMap((page) => page.entries) ?? [];
  const chain = pages?.[0]?.chain;
  const hasMore = Boolean(pages?.at(-1)?.nextCursor);
  const loadingMore = pages !== undefined && size > pages.length && !error;

  const show = (next: AuditFilters) => {
    const params = new URLSearchParams();
    for (const name of AUDIT_FILTER_NAMES) if (next[name].trim()) params.set(name, next[name].trim());
    setSearchParams(params, { replace: true });
  };
  const apply = (event: FormEvent) => {
    event.preventDefault();
    show(draft);
  };
  const clear = () => {
    setDraft(noFilters);
    show(noFilters);
  };
  const set = (name: keyof AuditFilters) => (value: string) => setDraft((current) => ({ ...current, [name]: value }));

  return (
    <PageShell width="xl">
      <AdminPageHeader
        title="Audit Log"
        subtitle="Every staff and system action, newest first"
        back
        actions={chain ? <ChainIndicator chain={chain} /> : null}
      />
      {sessionFailed ? (
        <SessionProblem onRetry={retrySession} />
      ) : session && !isSuperAdmin ? (
        <Alert variant="warning" title="Super admin access required">
          Only super admins can read the audit log.
        </Alert>
      ) : (
        <div className="flex flex-col gap-6">
          <form
            className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_1fr_auto_auto]"
            onSubmit={apply}
            aria-label="Filter the audit log"
          >
            <div className="flex min-w-0 flex-col gap-1">
              <Label htmlFor={ids.actor}>Staff member</Label>
              <Input
                id={ids.actor}
                placeholder="Staff name"
                value={draft.actor}
                maxLength={100}
                onChange={(event) => set('actor')(event.target.value)}
              />
            </div>
            <div className="flex min-w-0 flex-col gap-1">
              <Label htmlFor={ids.action}>Action</Label>
              <SimpleSelect
                id={ids.action}
                aria-label="Action"
                value={draft.action || ANY_ACTION}
                onValueChange={(value) => set('action')(value === ANY_ACTION ? '' : value)}
                options={actionOptions}
              />
            </div>
            <div className="flex min-w-0 flex-col gap-1">
              <Label htmlFor={ids.member}>Member</Label>
              <Input
                id={ids.member}
                placeholder="Discord ID"
                inputMode="numeric"
                value={draft.member}
                maxLength={21}
                onChange={(event) => set('member')(event.target.value)}
              />
            </div>
            <div className="flex min-w-0 flex-col gap-1">
              <Label htmlFor={ids.from}>From</Label>
              <Input id={ids.from} type="date" value={draft.from} onChange={(event) => set('from')(event.target.value)} />
            </div>
            <div className="flex min-w-0 flex-col gap-1">
              <Label htmlFor={ids.to}>To</Label>
              <Input id={ids.to} type="date" value={draft.to} onChange={(event) => set('to')(event.target.value)} />
            </div>
            <div className="flex items-end gap-2 sm:col-span-2 lg:col-span-5">
              <Button type="submit">Filter</Button>
              <Button type="button" variant="ghost" onClick={clear}>
                Clear
              </Button>
            </div>
          </form>

          {pages === undefined && error ? (
            <LoadError title="Could not load the audit log" onRetry={() => void mutate()}>
              {apiErrorMessage(error, 'The audit log could not be loaded. Check your connection and try again.')}
            </LoadError>
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

/** A member in a sentence: avatar and '@name' linking to their page; a deleted member by Discord ID, without a link. */
function MemberMention({ member }: { member: AuditMemberRef }) {
  if (!member.username) return <span className="font-mono text-xs">{memberRefText(member)}</span>;
  return (
    <Link
      to={`/admin/user/${member.discordId}`}
      className="inline-flex max-w-full items-baseline gap-1 font-semibold [overflow-wrap:anywhere] text-heading hover:underline"
    >
      <Avatar src={member.avatarUrl} name={member.username} size="xs" className="self-center" />
      <span>{memberRefText(member)}</span>
    </Link>
  );
}

function SentencePart({ part }: { part: AuditPart }) {
  if (part.kind === 'member') return <MemberMention member={part.member} />;
  if (part.kind === 'quote') return <q className="italic">{part.text}</q>;
  return <>{part.text}</>;
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  const parts = auditSentence(entry);
  return (
    <li className="rounded-lg border border-border bg-surface" data-action={entry.action}>
      <div className="flex flex-col gap-1 p-3 text-sm sm:p-4">
        <p className="break-words text-fg" data-testid="audit-sentence">
          {parts.map((part, i) => (
            <SentencePart key={i} part={part} />
          ))}
        </p>
        <p className="flex flex-wrap items-center gap-x-2 gap-y-0.5 text-xs text-muted">
          <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
          <span aria-hidden="true">·</span>
          <span>{auditActionLabel(entry.action)}</span>
          <span aria-hidden="true">·</span>
          <span title="The entry's place in the log">#{entry.id}</span>
        </p>
      </div>
    </li>
  );
}
