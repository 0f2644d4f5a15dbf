import { memberBadges, type BadgeSubject, type BadgeTone } from '@shared/member-badges';
import { Badge, type BadgeColor } from '@/components/ui/badge';

/** Colours (docs/behaviour.md#badges-on-a-member-card): green for 0 alts, amber for 1, red for 2+ and Certain Alt. */
export const BADGE_TONE_COLORS: Record<BadgeTone, BadgeColor> = {
  success: 'green',
  warning: 'amber',
  danger: 'red',
  info: 'blue',
  neutral: 'gray',
};

/** The card's badges in order of precedence (from the module the server filters by), then VPN and 'Nx'. */
export function MemberBadgeList({ member }: { member: BadgeSubject }) {
  return (
    <ul className="flex flex-wrap gap-1.5" aria-label="Status">
      {memberBadges(member).map((badge) => (
        <li key={badge.kind}>
          <Badge color={BADGE_TONE_COLORS[badge.tone]} data-kind={badge.kind}>
            {badge.label}
          </Badge>
        </li>
      ))}
    </ul>
  );
}
