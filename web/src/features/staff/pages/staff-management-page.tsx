import { useId, useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { FieldError } from '@/components/ui/field-error';
import { PageShell } from '@/components/ui/page-shell';
import { TextField } from '@/components/ui/text-field';
import { apiErrorMessage } from '@/lib/api';
import { useStaffActions, useStaffList } from '../api/staff';
import { AdminPageHeader, SessionProblem, useAdminSession, useSignInRedirect } from '@/features/admin-shell';
import { StaffRow } from '../components/staff-row';
import { useStaffCreation } from '../hooks/use-staff-creation';
import { LoadError } from '@/components/ui/load-error';
import { USERNAME_MAX_LENGTH } from '@shared/staff-account';

/** /admin/staff (super admins): create staff, change passwords, grant or revoke super admin, delete. */
export default function StaffManagementPage() {
  const { session, isSuperAdmin, failed: sessionFailed, retry: retrySession } = useAdminSession();
  const { data: staff, error, isLoading, mutate } = useStaffList(isSuperAdmin);
  useSignInRedirect(error);

  return (
    <PageShell width="lg">
      <AdminPageHeader title="Staff Management" subtitle="Create staff accounts and manage their access" back />
      {sessionFailed ? (
        <SessionProblem onRetry={retrySession} />
      ) : session && !isSuperAdmin ? (
        <Alert variant="warning" title="Super admin access required">
          Only super admins can manage staff accounts.
        </Alert>
      ) : (
        <div className="flex flex-col gap-6">
          <CreateStaffCard />
          <Card>
            <CardHeader>
              <CardTitle>Existing Staff Accounts</CardTitle>
            </CardHeader>
            <CardContent>
              {!session || isLoading || (staff === undefined && !error) ? (
                <p role="status" className="text-muted">
                  Loading staff accounts...
                </p>
              ) : staff === undefined ? (
                <LoadError title="Could not load staff accounts" onRetry={() => void mutate()}>
                  {apiErrorMessage(error, 'The staff list could not be loaded.')}
                </LoadError>
              ) : staff.length === 0 ? (
                <p className="text-muted">No staff accounts found.</p>
              ) : (
                <ul className="flex flex-col divide-y divide-border">
                  {staff.map((account) => (
                    <StaffRow key={account.id} account={account} isSelf={account.id === session.staffId} />
                  ))}
                </ul>
              )}
            </CardContent>
          </Card>
        </div>
      )}
    </PageShell>
  );
}

function CreateStaffCard() {
  const { createManagedStaff } = useStaffActions();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string>();
  const { submitting, createAccount } = useStaffCreation(createManagedStaff, () => {
    setUsername('');
    setPassword('');
  });
  const ids = { username: useId(), password: useId(), problem: useId() };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!username.trim() || !password) return setProblem('Username and password are required.');
    setProblem(undefined);
    await createAccount(username, password);
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Create Staff Account</CardTitle>
        <CardDescription>New accounts are regular staff; promote them below.</CardDescription>
      </CardHeader>
      <CardContent>
        <form noValidate className="flex flex-col gap-4" onSubmit={(event) => void submit(event)}>
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField
              id={ids.username}
              label="Username"
              autoComplete="off"
              maxLength={USERNAME_MAX_LENGTH}
              value={username}
              disabled={submitting}
              onChange={(event) => setUsername(event.target.value)}
              invalid={Boolean(problem) && !username.trim()}
              aria-describedby={problem ? ids.problem : undefined}
            />
            <TextField
              id={ids.password}
              label="Password"
              type="password"
              autoComplete="new-password"
              value={password}
              disabled={submitting}
              onChange={(event) => setPassword(event.target.value)}
              invalid={Boolean(problem) && !password}
              aria-describedby={problem ? ids.problem : undefined}
            />
          </div>
          <FieldError id={ids.problem} message={problem} />
          <div className="flex justify-end">
            <Button type="submit" loading={submitting}>
              {submitting ? 'Creating...' : 'Create Staff Account'}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
