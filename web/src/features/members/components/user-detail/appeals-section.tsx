import { Link } from 'react-router-dom';
import { APPEAL_OPEN_BADGE } from '@shared/member-badges';
import { standingLabel } from '@shared/member-states';
import { Badge } from '@/components/ui/badge';
import { AppealDecision, type MemberAppealView, useMemberAppeals } from '@/features/appeals-queue';
import { formatDateTime } from '@/features/admin-shell';
import { BADGE_TONE_COLORS } from '../member-badge-list';
import { DetailSection } from './detail-section';

/**
 * The member's appeals, newest first (docs/behaviour.md#appeals): an open one with a link to the
 * queue where staff decide it, the decided ones with who decided, when, why and what an approval
 * did. Nothing when the member never appealed.
 */
export function AppealsSection({ discordId }: { discordId: string }) {
  const { data } = useMemberAppeals(discordId);
  if (!data || data.appeals.length === 0) return null;
  return (
    <DetailSection title="Appeals">
      <ol className="flex flex-col gap-4" aria-label="Appeals of this member">
        {data.appeals.map((appeal) => (
          <AppealItem key={appeal.id} appeal={appeal} />
        ))}
      </ol>
    </DetailSection>
  );
}

function AppealItem({ appeal }: { appeal: MemberAppealView }) {
  return (
    <li className="flex flex-col gap-2" data-testid={`member-appeal-${appeal.id}`}>
      <p className="flex flex-wrap items-center gap-2 text-sm">
        {appeal.status === 'open' ? <Badge color={BADGE_TONE_COLORS[APPEAL_OPEN_BADGE.tone]}>{APPEAL_OPEN_BADGE.label}</Badge> : null}
        <span className="font-medium text-heading">Appeal #{appeal.id}</span>
        <span className="text-muted">
          filed <time dateTime={appeal.createdAt}>{formatDateTime(appeal.createdAt)}</time> at {standingLabel(appeal.standingAtFiling)}
        </span>
      </p>
      {/* the visitor's words, shown as text: React escapes them, never markup */}
      <blockquote className="rounded-md bg-surface-sunken/60 p-3 text-sm break-words whitespace-pre-wrap">{appeal.message}</blockquote>
      {appeal.status === 'open' ? (
        <Link to="/admin/appeals" className="self-start text-sm font-medium text-link hover:underline">
          Decide it in the Appeals queue
        </Link>
      ) : (
        <AppealDecision appeal={appeal} />
      )}
    </li>
  );
}
