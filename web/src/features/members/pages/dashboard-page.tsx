import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { MEMBER_FILTER_LABELS, MEMBER_FILTERS, MEMBER_LIST_HEADINGS, type MemberFilter } from '@shared/member-badges';
import { Button, buttonVariants } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { PageShell } from '@/components/ui/page-shell';
import { SimpleSelect } from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { useToast } from '@/components/ui/toast';
import { deleteVerificationRecord, useUserList, type UserListPage, type UserRecord } from '../api/members';
import {
  AdminPageHeader,
  FilePlusIcon,
  KeyIcon,
  LogOutIcon,
  ScrollIcon,
  SearchIcon,
  SettingsIcon,
  STAFF_LOGIN_PATH,
  useAdminSession,
  UserPlusIcon,
  UsersIcon,
  useSignInRedirect,
  useStaffAuth,
} from '@/features/admin-shell';
import { useOpenAppealCount } from '@/features/appeals-queue';
import { DiscordSetupBanner } from '../components/discord-setup-banner';
import { MemberCard } from '../components/member-card';
import { LockdownBanner } from '../components/lockdown-banner';
import { SharedNetworksPanel } from '../components/shared-networks-panel';
import { useDebouncedValue } from '../hooks/use-debounced-value';
import { LoadError } from '@/components/ui/load-error';

export const SEARCH_DEBOUNCE_MS = 250;

const filterOptions = MEMBER_FILTERS.map((value) => ({ value, label: MEMBER_FILTER_LABELS[value] }));

function isMemberFilter(value: string): value is MemberFilter {
  return (MEMBER_FILTERS as readonly string[]).includes(value);
}

/** Shows the total as the server gives it: a cap as "1,000+" (at least), an estimate (whole table) as "~1,000,000". */
function formatTotal(page: Pick<UserListPage, 'total' | 'totalIsExact' | 'totalIsCapped'>): string {
  const text = page.total.toLocaleString('en-US');
  if (page.totalIsCapped) return `${text}+`;
  return page.totalIsExact === false ? `~${text}` : text;
}

/** /admin: search, filter and page through the records; delete one from its card; the shared networks, to unmark. */
export default function DashboardPage() {
  const { session, isSuperAdmin } = useAdminSession();
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<MemberFilter>('all');
  const debouncedSearch = useDebouncedValue(search, SEARCH_DEBOUNCE_MS);
  const { data: pages, error, size, setSize, mutate, isValidating } = useUserList(debouncedSearch, filter);
  const handleUnauthorized = useSignInRedirect(error);
  const [pendingDelete, setPendingDelete] = useState<UserRecord | null>(null);
  const [deleting, setDeleting] = useState(false);
  const { toast } = useToast();

  const users = pages?.flatMap((page) => page.users) ?? [];
  const firstPage = pages?.[0];
  const hasMore = Boolean(pages?.at(-1)?.nextCursor);
  const loadingMore = pages !== undefined && size > pages.length && !error;
  const loadMore = () => {
    if (hasMore && !loadingMore) void setSize(size + 1);
  };

  const confirmDelete = async () => {
    if (!pendingDelete) return;
    setDeleting(true);
    try {
      await deleteVerificationRecord(pendingDelete.discordId);
      toast({ title: 'User deleted', description: 'The verification record has been removed.' });
      void mutate();
    } catch (deleteError) {
      toast({ variant: 'destructive', title: 'Error', description: 'Failed to delete user record.' });
      handleUnauthorized(deleteError);
      throw deleteError; // keeps the dialog open for another try
    } finally {
      setDeleting(false);
    }
  };

  return (
    <PageShell width="xl">
      <DiscordSetupBanner />
      <AdminPageHeader
        title="Admin Dashboard"
        subtitle="Manage verified users and alt accounts"
        foldActionsOnPhone
        actions={
          <>
            <Link to="/admin/manual-entry" className={buttonVariants({ variant: 'secondary', size: 'sm' })}>
              <FilePlusIcon className="size-4" />
              Manual Entry
            </Link>
            <Link to="/admin/create-staff" className={buttonVariants({ variant: 'secondary', size: 'sm' })}>
              <UserPlusIcon className="size-4" />
              Create Staff
            </Link>
            <Link to="/admin/statistics" className={buttonVariants({ variant: 'secondary', size: 'sm' })}>
              Statistics
            </Link>
            <AppealsLink />
            {isSuperAdmin ? (
              <>
                <Link to="/admin/staff" className={buttonVariants({ variant: 'secondary', size: 'sm' })}>
                  <UsersIcon className="size-4" />
                  Staff Management
                </Link>
                <Link to="/admin/audit" className={buttonVariants({ variant: 'secondary', size: 'sm' })}>
                  <ScrollIcon className="size-4" />
                  Audit Log
                </Link>
                <Link to="/admin/settings" className={buttonVariants({ variant: 'secondary', size: 'sm' })}>
                  <SettingsIcon className="size-4" />
                  Settings
                </Link>
              </>
            ) : null}
            <Link to="/admin/account" className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
              <KeyIcon className="size-4" />
              Change Password
            </Link>
            <LogoutButton />
          </>
        }
      />
      {session ? <p className="-mt-4 mb-6 text-xs text-muted sm:-mt-6">Signed in as {session.username}</p> : null}

      <LockdownBanner />
      <SharedNetworksPanel />

      <div className="mb-6 flex flex-col gap-3 sm:flex-row">
        <div className="relative flex-1">
          <SearchIcon className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted" />
          <Input
            type="search"
            aria-label="Search users"
            placeholder="Search by username or Discord ID..."
            value={search}
            maxLength={100}
            onChange={(event) => setSearch(event.target.value)}
            className="pl-9"
          />
        </div>
        <SimpleSelect
          aria-label="Filter users"
          className="sm:w-56"
          value={filter}
          onValueChange={(value) => {
            if (isMemberFilter(value)) setFilter(value);
          }}
          options={filterOptions}
        />
      </div>

      <section aria-labelledby="users-heading" aria-busy={isValidating}>
        <h2 id="users-heading" className="mb-4 flex items-center gap-2 text-lg font-semibold">
          {MEMBER_LIST_HEADINGS[filter]}
          {firstPage ? ` (${formatTotal(firstPage)})` : ''}
          {isValidating && pages ? <Spinner className="text-sm text-muted" label={null} /> : null}
        </h2>

        {pages === undefined && error ? (
          <LoadError title="Could not load users" onRetry={() => void mutate()}>
            The user list could not be loaded. Check your connection and try again.
          </LoadError>
        ) : pages === undefined ? (
          <p role="status" className="py-10 text-center text-muted">
            Loading...
          </p>
        ) : users.length === 0 ? (
          <p className="py-10 text-center text-muted">No users found</p>
        ) : (
          <>
            <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
              {users.map((user) => (
                <MemberCard key={user.discordId} user={user} onDelete={setPendingDelete} />
              ))}
            </ul>
            {hasMore ? (
              <div className="mt-6 flex justify-center">
                <AutoLoadSentinel onVisible={loadMore} />
                <Button variant="secondary" loading={loadingMore} onClick={loadMore}>
                  {loadingMore ? 'Loading more...' : 'Load more'}
                </Button>
              </div>
            ) : null}
          </>
        )}
      </section>

      <ConfirmDialog
        open={pendingDelete !== null}
        onOpenChange={(open) => {
          if (!open) setPendingDelete(null);
        }}
        title="Delete Verification Record"
        description={
          pendingDelete
            ? `This permanently deletes the verification record of ${pendingDelete.username} (${pendingDelete.discordId}). This action cannot be undone.`
            : undefined
        }
        confirmLabel="Delete"
        pendingLabel="Deleting..."
        destructive
        pending={deleting}
        onConfirm={confirmDelete}
      />
    </PageShell>
  );
}

/** Infinite scroll where the browser can tell us the end of the list is in view; the button works everywhere. */
function AutoLoadSentinel({ onVisible }: { onVisible: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const callback = useRef(onVisible);
  useEffect(() => {
    callback.current = onVisible;
  });
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) callback.current();
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return <div ref={ref} aria-hidden="true" className="h-px w-px" />;
}

function LogoutButton() {
  const { logout } = useStaffAuth();
  const navigate = useNavigate();
  const [pending, setPending] = useState(false);
  return (
    <Button
      variant="ghost"
      size="sm"
      loading={pending}
      onClick={() => {
        setPending(true);
        // After the call, whatever it answered, to the login page.
        void logout()
          .catch(() => undefined)
          .finally(() => void navigate(STAFF_LOGIN_PATH, { replace: true }));
      }}
    >
      {pending ? null : <LogOutIcon className="size-4" />}
      Logout
    </Button>
  );
}

/** 'Appeals' with the number of open ones, so a waiting request is seen from the dashboard. */
function AppealsLink() {
  const { data } = useOpenAppealCount();
  const open = data?.open ?? 0;
  return (
    <Link to="/admin/appeals" className={buttonVariants({ variant: 'secondary', size: 'sm' })} aria-label={`Appeals, ${open} open`}>
      Appeals
      <span
        className={
          open > 0
            ? 'rounded-full bg-danger px-1.5 text-xs font-bold text-white'
            : 'rounded-full bg-surface-sunken px-1.5 text-xs text-muted'
        }
      >
        {open}
      </span>
    </Link>
  );
}
