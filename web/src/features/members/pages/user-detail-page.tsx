import { useParams } from 'react-router-dom';
import { PageShell } from '@/components/ui/page-shell';
import { isApiStatus } from '@/lib/api';
import { useUserDetail } from '../api/members';
import { AdminPageHeader, useAdminSession, useSignInRedirect } from '@/features/admin-shell';
import { AdminManagement } from '../components/user-detail/admin-management';
import { AltAccountsSection } from '../components/user-detail/alt-accounts-section';
import { AppealsSection } from '../components/user-detail/appeals-section';
import { DoubleCounterData, DoubleCounterFingerprint } from '../components/user-detail/double-counter-sections';
import { WeakEvidenceSection, weakEvidenceOf } from '../components/user-detail/weak-evidence-section';
import { IdentitySection } from '../components/user-detail/identity-section';
import { StandingHeader } from '../components/user-detail/standing-header';
import { LoadError } from '@/components/ui/load-error';

/** The tool's name titles the page. */
export const TOOL_NAME = 'Gatekeeper';

/** /admin/user/:discordId: the member's standing, identity, counters, fingerprint, alts with evidence, and the staff actions. */
export default function UserDetailPage() {
  const { discordId } = useParams<{ discordId: string }>();
  const { isSuperAdmin } = useAdminSession();
  const { data: user, error, mutate } = useUserDetail(discordId);
  useSignInRedirect(error);

  let body;
  if (!user && isApiStatus(error, 404)) {
    body = <p className="py-10 text-center text-lg text-muted">User not found</p>;
  } else if (!user && error) {
    body = (
      <LoadError title="Could not load this user" onRetry={() => void mutate()}>
        Check your connection and try again.
      </LoadError>
    );
  } else if (!user) {
    body = (
      <p role="status" className="py-10 text-center text-muted">
        Loading...
      </p>
    );
  } else {
    body = (
      <div className="flex flex-col gap-6">
        <StandingHeader user={user} />
        <AppealsSection discordId={user.discordId} />
        <IdentitySection user={user} />
        <DoubleCounterData user={user} />
        <DoubleCounterFingerprint user={user} />
        {user.altsFound > 0 || user.alts.length > weakEvidenceOf(user.alts).length ? (
          <AltAccountsSection key={`alts-${user.discordId}`} discordId={user.discordId} alts={user.alts} />
        ) : null}
        <WeakEvidenceSection alts={user.alts} />
        {/* keyed by user: unsaved edits never carry over to the next user opened from an alt's avatar */}
        <AdminManagement key={`manage-${user.discordId}`} user={user} isSuperAdmin={isSuperAdmin} />
      </div>
    );
  }

  return (
    <PageShell width="lg">
      <AdminPageHeader
        title={TOOL_NAME}
        subtitle="User verification and alt analysis"
        back
        documentTitle={user ? user.username : 'User Details'}
      />
      {body}
    </PageShell>
  );
}
