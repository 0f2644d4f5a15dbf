import { memberStanding } from '@shared/member-badges';
import { MEMBER_STATES } from '@shared/member-states';
import type { UserDetail } from '../../api/members';
import { formatDateTime } from '@/features/admin-shell';
import { MemberBadgeList } from '../member-badge-list';
import { DetailSection } from './detail-section';

const ACCESS_WORDS: Record<UserDetail['verificationStatus'], string> = {
  verified: 'Verified',
  limited: 'Limited Access',
  pending: 'Pending',
  denied: 'Denied',
};

/**
 * The verification status in words: Limited Access with the VPN (and its provider) that put the
 * member there, a hold for staff review, otherwise where the member stands in Discord.
 */
export function verificationStatusText(
  user: Pick<UserDetail, 'status' | 'usedVpn' | 'vpnProvider' | 'verificationStatus' | 'admission'>,
): string {
  if (user.admission?.action === 'review') return 'Held for staff review';
  if (user.status === 'limited_access') {
    if (user.vpnProvider) return `Limited Access (VPN: ${user.vpnProvider})`;
    return user.usedVpn ? 'Limited Access (VPN)' : 'Limited Access';
  }
  return ACCESS_WORDS[user.verificationStatus];
}

/**
 * The top of the detail page: the card's badges (the same standing function the card and the
 * list filters read), why in one sentence (built by the server), the verification status and
 * how often and when the member verified.
 */
export function StandingHeader({ user }: { user: UserDetail }) {
  const facts = [
    { label: 'Verification status', value: verificationStatusText(user) },
    { label: 'Verifications', value: String(user.verificationCount) },
    { label: 'First verification', value: user.firstVerifiedAt ? formatDateTime(user.firstVerifiedAt) : 'Never', at: user.firstVerifiedAt },
    { label: 'Last verification', value: user.lastVerifiedAt ? formatDateTime(user.lastVerifiedAt) : 'Never', at: user.lastVerifiedAt },
  ];
  return (
    <DetailSection title="Standing">
      <div className="flex flex-col gap-4" data-testid="standing">
        <MemberBadgeList member={user} />
        <p className="-mt-2 text-sm text-muted" data-testid="standing-explanation">
          {MEMBER_STATES[memberStanding(user)].explanation}
        </p>
        <p className="text-base font-medium text-heading" data-testid="standing-reason">
          {user.standingReason ?? 'Nothing flagged: no alt link, staff override or hold.'}
        </p>
        {/* label above value, so the values line up whatever their length; two columns even on a phone */}
        <dl className="grid grid-cols-2 gap-2 sm:gap-3 lg:grid-cols-4">
          {facts.map((fact) => (
            <div key={fact.label} className="flex flex-col gap-1 rounded-lg bg-surface-sunken/60 p-3">
              <dt className="text-xs text-muted sm:text-sm">{fact.label}</dt>
              <dd className="text-sm font-semibold break-words text-heading sm:text-base">
                {fact.at ? <time dateTime={fact.at}>{fact.value}</time> : fact.value}
              </dd>
            </div>
          ))}
        </dl>
      </div>
    </DetailSection>
  );
}
