import { Link } from 'react-router-dom';
import { Avatar } from '@/components/ui/avatar';
import { Button } from '@/components/ui/button';
import { SimpleTooltip } from '@/components/ui/tooltip';
import { cn } from '@/lib/cn';
import { describeAltEvidence } from '@shared/alt-evidence-words';
import type { AltConfidence, AltEntry } from '../../api/members';
import { formatDate } from '@/features/admin-shell';
import { describeDetectionMethod } from './fingerprint-labels';

const CONFIDENCE_WORDS: Record<AltConfidence, string> = { certain: 'Certain', medium: 'Medium confidence', possible: 'Possible' };

/** The exact words a dismissed link reads with on the detail page. */
export const DISMISSED_LABEL = 'Dismissed — not the same person';

/** How the link was found, in words beside the avatar: confidence and method. */
export function describeAltLink(alt: Pick<AltEntry, 'confidence' | 'detectionMethod'>): string {
  return `${CONFIDENCE_WORDS[alt.confidence]} · ${describeDetectionMethod(alt.detectionMethod)}`;
}

/** Who dismissed a link, when, and why (when a reason was given). */
export function describeDismissal(dismissed: NonNullable<AltEntry['dismissed']>): string {
  const when = `${dismissed.byName ? `By ${dismissed.byName} on` : 'On'} ${formatDate(dismissed.at)}`;
  return dismissed.reason ? `${when} · “${dismissed.reason}”` : when;
}

export interface AltLinkItemProps {
  alt: AltEntry;
  /** opens the "Not the same person" confirmation for an open link */
  onDismiss: (alt: AltEntry) => void;
  onReopen: (alt: AltEntry) => void;
  /** this link's reopen is under way */
  reopening?: boolean;
}

/**
 * One linked account, readable without hovering: avatar, username, how it was found and
 * which side of the link it is, in text; the avatar's tooltip says the same and the
 * Discord ID. A dismissed link is greyed and says so, with Reopen.
 */
export function AltLinkItem({ alt, onDismiss, onReopen, reopening = false }: AltLinkItemProps) {
  const href = `/admin/user/${encodeURIComponent(alt.discordId)}`;
  const dismissed = alt.dismissed;
  return (
    <div
      className={cn(
        'flex items-start gap-3 rounded-lg border border-border p-3',
        dismissed ? 'bg-surface-sunken/30' : 'bg-surface-sunken/60',
      )}
    >
      <SimpleTooltip
        content={
          <span className="flex flex-col gap-0.5">
            <span className="font-semibold text-heading">{alt.username}</span>
            <span className="font-mono">{alt.discordId}</span>
            <span>Detected by: {describeDetectionMethod(alt.detectionMethod)}</span>
          </span>
        }
      >
        <Link
          to={href}
          className={cn(
            'inline-flex shrink-0 rounded-full focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blurple',
            dismissed && 'opacity-50 grayscale',
          )}
        >
          <Avatar src={alt.avatarUrl} name={alt.username} size="md" />
        </Link>
      </SimpleTooltip>
      <div className={cn('flex min-w-0 flex-1 flex-col gap-1', dismissed && 'text-muted')}>
        {/* the avatar is the link for keyboards and screen readers; the name is a second target for the mouse */}
        <Link
          to={href}
          tabIndex={-1}
          aria-hidden="true"
          className={cn('font-semibold [overflow-wrap:anywhere] no-underline hover:underline', dismissed ? 'text-muted' : 'text-heading')}
        >
          {alt.username}
        </Link>
        <p className="text-sm break-words">{describeAltLink(alt)}</p>
        <p className="text-sm break-words">Why: {describeAltEvidence(alt)}</p>
        <p className="text-xs text-muted">{alt.otherIs === 'main' ? 'Older account (main)' : 'Newer account (alt)'}</p>
        {dismissed ? (
          <>
            <p className="text-sm font-medium text-fg">{DISMISSED_LABEL}</p>
            <p className="text-xs break-words">{describeDismissal(dismissed)}</p>
          </>
        ) : null}
        <div className="pt-1">
          {dismissed ? (
            <Button
              size="sm"
              variant="secondary"
              loading={reopening}
              onClick={() => onReopen(alt)}
              aria-label={`Reopen the link to ${alt.username}`}
            >
              Reopen
            </Button>
          ) : (
            <Button size="sm" variant="secondary" onClick={() => onDismiss(alt)} aria-label={`Not the same person: ${alt.username}`}>
              Not the same person
            </Button>
          )}
        </div>
      </div>
    </div>
  );
}
