import { useState } from 'react';
import { Link } from 'react-router-dom';
import { APPEAL_REASON_MAX, appealOutcomeLines, checkAppealText, type AppealListStatus } from '@shared/appeals';
import { standingLabel } from '@shared/member-states';
import { Avatar } from '@/components/ui/avatar';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { LoadError } from '@/components/ui/load-error';
import { PageShell } from '@/components/ui/page-shell';
import { Textarea } from '@/components/ui/textarea';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { useAppealDecisions, useAppealQueue, useApprovalPreview, type StaffAppealView } from '../api/appeals';
import { AdminPageHeader, formatDateTime, useSignInRedirect } from '@/features/admin-shell';
import { AppealDecision } from '../components/appeal-decision';
import { MemberBadgeList } from '@/features/members';

const LIST_TABS: { status: AppealListStatus; label: string }[] = [
  { status: 'open', label: 'Open' },
  { status: 'decided', label: 'Decided' },
];

/**
 * /admin/appeals (all staff): the open appeals, oldest first (approve, or reject with a reason the
 * visitor sees), or under 'Decided' the decided ones, newest first, with who decided, when, why and
 * what an approval did.
 */
export default function AppealsPage() {
  const [status, setStatus] = useState<AppealListStatus>('open');
  const { data, error, mutate } = useAppealQueue(status);
  useSignInRedirect(error);
  return (
    <PageShell width="lg">
      <AdminPageHeader title="Appeals" subtitle="Requests from denied and Limited Access visitors, oldest first" back />
      <div role="group" aria-label="Which appeals" className="mb-6 inline-flex gap-1 self-start rounded-lg bg-surface-sunken/60 p-1">
        {LIST_TABS.map((tab) => (
          <Button
            key={tab.status}
            size="sm"
            variant={status === tab.status ? 'primary' : 'ghost'}
            aria-pressed={status === tab.status}
            onClick={() => setStatus(tab.status)}
          >
            {tab.label}
          </Button>
        ))}
      </div>
      {data ? (
        data.appeals.length === 0 ? (
          <p className="py-10 text-center text-muted">{status === 'open' ? 'No open appeals' : 'No decided appeals'}</p>
        ) : (
          <>
            <h2 className="mb-4 text-lg font-semibold">
              {status === 'open' ? `Open appeals (${data.open})` : 'Decided appeals, newest first'}
            </h2>
            <ul className="flex flex-col gap-4">
              {data.appeals.map((appeal) => (
                <AppealCard key={appeal.id} appeal={appeal} />
              ))}
            </ul>
          </>
        )
      ) : error ? (
        <LoadError title="Could not load appeals" onRetry={() => void mutate()}>
          {apiErrorMessage(error, 'The appeals could not be loaded. Check your connection and try again.')}
        </LoadError>
      ) : (
        <p role="status" className="py-10 text-center text-muted">
          Loading...
        </p>
      )}
    </PageShell>
  );
}

/** The confirmation's body: what approving will do, read from the server when the dialog opens. */
function ApprovalPreview({ appealId, open }: { appealId: number; open: boolean }) {
  const { data, error } = useApprovalPreview(appealId, open);
  if (error) return <p className="text-sm text-danger">{apiErrorMessage(error, 'Could not read what approving would do.')}</p>;
  if (!data) return <p className="text-sm text-muted">Checking what approving will do...</p>;
  return (
    <div className="flex flex-col gap-1 text-sm" data-testid="approval-preview">
      <p className="font-medium text-heading">Approving will:</p>
      <ul className="list-disc pl-5">
        {appealOutcomeLines(data, 'will').map((line) => (
          <li key={line} className="break-words">
            {line}
          </li>
        ))}
      </ul>
    </div>
  );
}

function evidenceLines(appeal: StaffAppealView): string[] {
  const { links, topLinks, vpnProvider, gateReason } = appeal.evidence;
  const lines: string[] = [];
  const total = links.certain + links.medium;
  if (total > 0) lines.push(`Alt links: ${links.certain} certain, ${links.medium} medium`);
  for (const link of topLinks) lines.push(`Linked to ${link.username} (${link.discordId}): ${link.why}`);
  if (vpnProvider) lines.push(`VPN or proxy: ${vpnProvider}`);
  if (gateReason) lines.push(`Server rule: ${gateReason}`);
  if (lines.length === 0)
    lines.push(appeal.standing === 'certain_alt' ? 'Marked certain alt by staff (no detected link)' : 'No recorded evidence');
  return lines;
}

function AppealCard({ appeal }: { appeal: StaffAppealView }) {
  const { toast } = useToast();
  const handleUnauthorized = useSignInRedirect();
  const [approving, setApproving] = useState(false);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const [reasonProblem, setReasonProblem] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const { member } = appeal;
  const decisions = useAppealDecisions();

  const approve = async () => {
    setApproving(true);
    try {
      const { next, outcome } = await decisions.approve(appeal.id);
      const did = outcome ? appealOutcomeLines(outcome, 'did').join('. ') : null;
      toast({
        title: 'Appeal approved',
        description: [did, next].filter(Boolean).join('. ') || `${member.username} gets the Verified role.`,
      });
    } catch (error) {
      if (!handleUnauthorized(error))
        toast({ variant: 'destructive', title: 'Error', description: apiErrorMessage(error, 'Failed to approve the appeal.') });
      throw error;
    } finally {
      setApproving(false);
    }
  };

  const reject = async () => {
    const checked = checkAppealText(reason, APPEAL_REASON_MAX, 'The reason');
    if (!checked.ok) {
      setReasonProblem(checked.error);
      return;
    }
    setSending(true);
    setReasonProblem(null);
    try {
      await decisions.reject(appeal.id, checked.text);
      toast({ title: 'Appeal rejected', description: `${member.username} can read your reason on the appeal page.` });
    } catch (error) {
      if (!handleUnauthorized(error))
        toast({ variant: 'destructive', title: 'Error', description: apiErrorMessage(error, 'Failed to reject the appeal.') });
    } finally {
      setSending(false);
    }
  };

  return (
    <li>
      <Card>
        <CardContent className="flex flex-col gap-4 p-4 sm:p-6">
          <div className="flex flex-wrap items-start gap-3">
            <Avatar src={member.avatarUrl} name={member.username} />
            <div className="flex min-w-[10rem] flex-1 flex-col gap-1">
              <Link to={`/admin/user/${member.discordId}`} className="truncate font-semibold text-heading hover:underline">
                {member.username}
              </Link>
              <span className="font-mono text-xs break-all text-muted">{member.discordId}</span>
              <MemberBadgeList member={member} />
            </div>
            <div className="w-full text-xs text-muted sm:w-auto sm:text-right">
              <span>#{appeal.id}</span> <span>{formatDateTime(appeal.createdAt)}</span>
            </div>
          </div>
          <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
            <dt className="text-muted">Standing</dt>
            <dd>
              {standingLabel(appeal.standing)}
              {appeal.standing !== appeal.standingAtFiling ? ` (was ${standingLabel(appeal.standingAtFiling)} when filed)` : ''}
            </dd>
            <dt className="text-muted">Evidence</dt>
            <dd>
              <ul className="flex flex-col gap-0.5">
                {evidenceLines(appeal).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </dd>
          </dl>
          <div>
            <p className="mb-1 text-sm text-muted">Their message</p>
            {/* the visitor's words, shown as text: React escapes them, never markup */}
            <blockquote className="rounded-md bg-surface-sunken/60 p-3 text-sm break-words whitespace-pre-wrap">
              {appeal.message}
            </blockquote>
          </div>
          {appeal.status !== 'open' ? (
            <AppealDecision appeal={appeal} />
          ) : rejecting ? (
            <div className="flex flex-col gap-2">
              <Label htmlFor={`reject-reason-${appeal.id}`}>Reason (the visitor sees it)</Label>
              <Textarea
                id={`reject-reason-${appeal.id}`}
                value={reason}
                maxLength={APPEAL_REASON_MAX}
                rows={3}
                aria-invalid={reasonProblem ? true : undefined}
                onChange={(event) => setReason(event.target.value)}
              />
              {reasonProblem ? (
                <p role="alert" className="text-sm text-danger">
                  {reasonProblem}
                </p>
              ) : null}
              <div className="flex flex-col gap-2 sm:flex-row">
                <Button variant="destructive" loading={sending} onClick={() => void reject()}>
                  {sending ? 'Rejecting...' : 'Reject appeal'}
                </Button>
                <Button variant="secondary" onClick={() => setRejecting(false)}>
                  Cancel
                </Button>
              </div>
            </div>
          ) : (
            <div className="flex flex-col gap-2 sm:flex-row">
              <Button onClick={() => setConfirmOpen(true)}>Approve</Button>
              <Button variant="secondary" onClick={() => setRejecting(true)}>
                Reject with reason
              </Button>
            </div>
          )}
        </CardContent>
      </Card>
      <ConfirmDialog
        open={confirmOpen}
        onOpenChange={setConfirmOpen}
        title="Approve appeal"
        description={`The appeal of ${member.username} (${member.discordId}).`}
        confirmLabel="Approve"
        pendingLabel="Approving..."
        pending={approving}
        onConfirm={approve}
      >
        <ApprovalPreview appealId={appeal.id} open={confirmOpen} />
      </ConfirmDialog>
    </li>
  );
}
