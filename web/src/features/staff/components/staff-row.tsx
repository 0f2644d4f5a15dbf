import { useId, useState, type FormEvent } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { useStaffActions, type StaffAccount } from '../api/staff';
import { useSignInRedirect } from '@/features/admin-shell';

type PendingAction = 'password' | 'super-admin' | 'delete' | null;

/** The grant/removal confirmation names the user. */
export function superAdminConfirmText(account: Pick<StaffAccount, 'username' | 'isSuperAdmin'>): string {
  return account.isSuperAdmin
    ? `Are you sure you want to remove super admin privileges from ${account.username}?`
    : `Are you sure you want to make ${account.username} a super admin?`;
}

export function deleteStaffConfirmText(username: string): string {
  return `Are you sure you want to delete staff account ${username}? This action cannot be undone.`;
}

/** One staff account; the protected owner account shows no controls (docs/behaviour.md#staff-roles-and-sessions). */
export function StaffRow({ account, isSelf }: { account: StaffAccount; isSelf: boolean }) {
  const { changePassword, toggleSuperAdmin, deleteStaff } = useStaffActions();
  const handleUnauthorized = useSignInRedirect();
  const { toast } = useToast();
  const [newPassword, setNewPassword] = useState('');
  const [passwordProblem, setPasswordProblem] = useState<string>();
  const [pending, setPending] = useState<PendingAction>(null);
  const headingId = useId();
  const passwordId = useId();

  const run = async (action: Exclude<PendingAction, null>, work: () => Promise<void>, success: string, failure: string) => {
    setPending(action);
    try {
      await work();
      toast({ title: success });
      return true;
    } catch (error) {
      toast({ variant: 'destructive', title: apiErrorMessage(error, failure) });
      handleUnauthorized(error);
      return false;
    } finally {
      setPending(null);
    }
  };

  const updatePassword = async (event: FormEvent) => {
    event.preventDefault();
    if (!newPassword) return setPasswordProblem('Password cannot be empty.');
    setPasswordProblem(undefined);
    const done = await run('password', () => changePassword(account.id, newPassword), 'Password updated', 'Failed to update password.');
    if (done) setNewPassword('');
  };

  const toggle = () => {
    if (!window.confirm(superAdminConfirmText(account))) return;
    void run('super-admin', () => toggleSuperAdmin(account), 'Super admin status updated', 'Failed to update super admin status.');
  };

  const remove = () => {
    if (!window.confirm(deleteStaffConfirmText(account.username))) return;
    void run('delete', () => deleteStaff(account.id), 'Staff account deleted', 'Failed to delete staff account.');
  };

  return (
    <li aria-labelledby={headingId} className="flex flex-col gap-4 py-4 first:pt-0 last:pb-0 lg:flex-row lg:items-start lg:justify-between">
      <div className="flex min-w-0 flex-col gap-1">
        <div className="flex flex-wrap items-center gap-2">
          <h3 id={headingId} className="truncate font-semibold">
            {account.username}
          </h3>
          {account.isSuperAdmin ? <Badge color="blue">SUPER ADMIN</Badge> : null}
          {isSelf ? <Badge>You</Badge> : null}
        </div>
        <p className="text-xs text-muted">
          Staff ID <span className="font-mono">{account.id}</span>
        </p>
        {account.isOwner ? <p className="text-xs text-muted">Protected owner account: it cannot be changed here.</p> : null}
      </div>

      {account.isOwner ? null : (
        <div className="flex flex-col gap-3 lg:items-end">
          <div className="flex flex-wrap gap-2">
            <Button variant="secondary" size="sm" loading={pending === 'super-admin'} disabled={pending !== null} onClick={toggle}>
              {account.isSuperAdmin ? 'Remove Super Admin' : 'Make Super Admin'}
            </Button>
            <Button variant="destructive" size="sm" loading={pending === 'delete'} disabled={pending !== null} onClick={remove}>
              Delete
            </Button>
          </div>
          <form noValidate className="flex flex-col gap-1" onSubmit={(event) => void updatePassword(event)}>
            <Label htmlFor={passwordId}>
              Change Password<span className="sr-only"> for {account.username}</span>
            </Label>
            <div className="flex gap-2">
              <Input
                id={passwordId}
                type="password"
                autoComplete="new-password"
                placeholder="New password"
                className="sm:w-56"
                value={newPassword}
                disabled={pending !== null}
                onChange={(event) => setNewPassword(event.target.value)}
                aria-invalid={passwordProblem ? true : undefined}
                aria-describedby={passwordProblem ? `${passwordId}-error` : undefined}
              />
              <Button type="submit" loading={pending === 'password'} disabled={pending !== null}>
                Update
              </Button>
            </div>
            <FieldError id={`${passwordId}-error`} message={passwordProblem} />
          </form>
        </div>
      )}
    </li>
  );
}
