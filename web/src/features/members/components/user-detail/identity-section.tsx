import { Avatar } from '@/components/ui/avatar';
import { Badge } from '@/components/ui/badge';
import type { UserDetail } from '../../api/members';
import { formatDate } from '@/features/admin-shell';
import { DetailSection } from './detail-section';

/** Discord Account & Identity: who the record is about. */
export function IdentitySection({ user }: { user: UserDetail }) {
  return (
    <DetailSection title="Discord Account & Identity">
      <div className="flex flex-col gap-5 sm:flex-row sm:items-center">
        <Avatar src={user.avatarUrl} name={user.username} size="xl" />
        <div className="flex min-w-0 flex-col gap-2">
          <div className="flex flex-wrap items-center gap-2">
            <p className="truncate text-xl font-bold text-heading">{user.username}</p>
            {user.rulesConfirmed ? <Badge color="gray">Offline</Badge> : <Badge color="amber">Unverified</Badge>}
          </div>
          <p className="font-mono text-sm break-all text-muted">{user.discordId}</p>
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-muted">Account created</dt>
            <dd>
              <time dateTime={user.creationDate}>{formatDate(user.creationDate)}</time>
            </dd>
            {user.admission ? (
              <>
                <dt className="text-muted">Admission</dt>
                <dd>
                  {user.admission.action === 'review' ? 'Held for staff review' : 'Limited Access'}
                  {user.admission.reason ? `: ${user.admission.reason}` : ''}
                </dd>
              </>
            ) : null}
            <dt className="text-muted">Badges</dt>
            <dd>No badges</dd>
          </dl>
        </div>
      </div>
    </DetailSection>
  );
}
