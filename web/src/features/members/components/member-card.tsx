import { Link } from 'react-router-dom';
import { Avatar } from '@/components/ui/avatar';
import { Button } from '@/components/ui/button';
import type { UserRecord } from '../api/members';
import { formatDate, TrashIcon } from '@/features/admin-shell';
import { MemberBadgeList } from './member-badge-list';

export interface MemberCardProps {
  user: UserRecord;
  onDelete: (user: UserRecord) => void;
}

/**
 * One dashboard card: a link to the detail page, and a delete button beside it (not inside: a
 * button in a link is invalid) that shows on hover, on keyboard focus and always on touch screens.
 */
export function MemberCard({ user, onDelete }: MemberCardProps) {
  return (
    <li className="group relative">
      <Link
        to={`/admin/user/${encodeURIComponent(user.discordId)}`}
        className="flex h-full flex-col gap-3 rounded-xl border border-border bg-surface p-4 text-fg no-underline! shadow-sm transition-colors hover:border-blurple focus-visible:border-blurple focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blurple"
      >
        <span className="flex items-center gap-3 pr-10">
          <Avatar src={user.avatarUrl} name={user.username} size="md" />
          <span className="flex min-w-0 flex-col">
            <span className="truncate font-semibold text-heading">{user.username}</span>
            <span className="truncate font-mono text-xs text-muted">{user.discordId}</span>
          </span>
        </span>
        <MemberBadgeList member={user} />
        <span className="mt-auto text-xs text-muted">
          <time dateTime={user.timestamp}>{formatDate(user.timestamp)}</time>
        </span>
      </Link>
      <Button
        variant="destructive"
        size="icon"
        aria-label={`Delete verification record of ${user.username}`}
        className="absolute top-3 right-3 opacity-0 transition-opacity group-focus-within:opacity-100 group-hover:opacity-100 focus-visible:opacity-100 [@media(hover:none)]:opacity-100"
        onClick={() => onDelete(user)}
      >
        <TrashIcon className="size-4" />
      </Button>
    </li>
  );
}
