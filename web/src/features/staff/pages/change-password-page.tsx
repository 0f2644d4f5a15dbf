import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Alert } from '@/components/ui/alert';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { PageShell } from '@/components/ui/page-shell';
import { TextField } from '@/components/ui/text-field';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { isPasswordTooShort, PASSWORD_LENGTH_HINT, PASSWORD_TOO_SHORT } from '@shared/staff-account';
import { changeOwnPassword } from '../api/staff';
import { AdminPageHeader, useAdminSession, useSignInRedirect } from '@/features/admin-shell';

export const FILL_ALL = 'Please fill in all fields';
export const PASSWORDS_DIFFER = 'The new passwords do not match';

/** What is wrong with the form before it is sent, or null. */
export function changePasswordProblem(form: { current: string; next: string; confirm: string }): string | null {
  if (!form.current || !form.next || !form.confirm) return FILL_ALL;
  if (isPasswordTooShort(form.next)) return PASSWORD_TOO_SHORT;
  if (form.next !== form.confirm) return PASSWORDS_DIFFER;
  return null;
}

/** /admin/account: any staff member (the owner included) changes their own password; their other sessions end. */
export default function ChangePasswordPage() {
  const { session } = useAdminSession();
  const handleUnauthorized = useSignInRedirect();
  const { toast } = useToast();
  const [form, setForm] = useState({ current: '', next: '', confirm: '' });
  const [problem, setProblem] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [done, setDone] = useState(false);
  const ids = { current: useId(), next: useId(), confirm: useId(), problem: useId() };

  const update = (field: keyof typeof form, value: string) => {
    setForm((current) => ({ ...current, [field]: value }));
    setDone(false);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = changePasswordProblem(form);
    setProblem(found);
    if (found) return;
    setSubmitting(true);
    try {
      await changeOwnPassword(form.current, form.next);
      toast({ title: 'Password updated', description: 'Your other sessions have been signed out.' });
      setForm({ current: '', next: '', confirm: '' });
      setDone(true);
    } catch (error) {
      setProblem(apiErrorMessage(error, 'Failed to update password.'));
      handleUnauthorized(error);
    } finally {
      setSubmitting(false);
    }
  };

  const invalid = {
    current: problem !== null && (problem === FILL_ALL ? !form.current : problem.startsWith('Current password')),
    next: problem !== null && (problem === FILL_ALL ? !form.next : problem !== PASSWORDS_DIFFER && !problem.startsWith('Current password')),
    confirm: problem !== null && (problem === FILL_ALL ? !form.confirm : problem === PASSWORDS_DIFFER),
  };

  return (
    <PageShell width="md">
      <AdminPageHeader title="Change Password" subtitle={session ? `Signed in as ${session.username}` : 'Your staff account'} back />
      <Card>
        <CardContent>
          <form
            noValidate
            className="flex flex-col gap-4"
            onSubmit={(event) => void submit(event)}
            aria-describedby={problem ? ids.problem : undefined}
          >
            {problem ? (
              <Alert variant="danger" id={ids.problem}>
                {problem}
              </Alert>
            ) : null}
            {done ? (
              <Alert variant="success" title="Password changed">
                Your other sessions have been signed out.
              </Alert>
            ) : null}
            {/* a hidden username lets password managers file the new password under the right account */}
            <input type="text" name="username" autoComplete="username" value={session?.username ?? ''} readOnly hidden />
            <TextField
              id={ids.current}
              label="Current password"
              name="currentPassword"
              type="password"
              autoComplete="current-password"
              value={form.current}
              disabled={submitting}
              onChange={(event) => update('current', event.target.value)}
              invalid={invalid.current}
            />
            <TextField
              id={ids.next}
              label="New password"
              name="newPassword"
              type="password"
              autoComplete="new-password"
              value={form.next}
              disabled={submitting}
              onChange={(event) => update('next', event.target.value)}
              hint={PASSWORD_LENGTH_HINT}
              invalid={invalid.next}
            />
            <TextField
              id={ids.confirm}
              label="Confirm new password"
              name="confirmPassword"
              type="password"
              autoComplete="new-password"
              value={form.confirm}
              disabled={submitting}
              onChange={(event) => update('confirm', event.target.value)}
              invalid={invalid.confirm}
            />
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Link to="/admin" className={buttonVariants({ variant: 'secondary' })}>
                Cancel
              </Link>
              <Button type="submit" loading={submitting}>
                {submitting ? 'Updating...' : 'Change Password'}
              </Button>
            </div>
          </form>
        </CardContent>
      </Card>
    </PageShell>
  );
}
