import { appealOutcomeLines, type AppealOutcome, type AppealStatus } from '@shared/appeals';
import { formatDateTime } from '@/features/admin-shell';

/** Who decided a decided appeal, when, why (a rejection) and what an approval did. */
export function AppealDecision({
  appeal,
}: {
  appeal: {
    status: AppealStatus;
    decidedAt: string | null;
    decidedByName: string | null;
    decisionReason: string | null;
    outcome: AppealOutcome | null;
  };
}) {
  if (appeal.status === 'open') return null;
  return (
    <div className="flex flex-col gap-1 rounded-md border border-border p-3 text-sm" data-testid="appeal-decision">
      <p className="font-medium text-heading">
        {appeal.status === 'approved' ? 'Approved' : 'Rejected'} by {appeal.decidedByName ?? 'a staff member'}
        {appeal.decidedAt ? (
          <>
            {' '}
            on <time dateTime={appeal.decidedAt}>{formatDateTime(appeal.decidedAt)}</time>
          </>
        ) : null}
      </p>
      {appeal.decisionReason ? (
        <p>
          <span className="text-muted">Reason: </span>
          <q className="break-words">{appeal.decisionReason}</q>
        </p>
      ) : null}
      {appeal.outcome ? (
        <ul className="list-disc pl-5 text-muted">
          {appealOutcomeLines(appeal.outcome, 'did').map((line) => (
            <li key={line} className="break-words">
              {line}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
