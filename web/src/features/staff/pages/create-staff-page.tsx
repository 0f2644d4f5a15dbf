import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Alert } from '@/components/ui/alert';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { PageShell } from '@/components/ui/page-shell';
import { TextField } from '@/components/ui/text-field';
import { useStaffActions } from '../api/staff';
import { AdminPageHeader, useAdminSession } from '@/features/admin-shell';
import { useStaffCreation } from '../hooks/use-staff-creation';
import { isPasswordTooShort, PASSWORD_LENGTH_HINT, PASSWORD_TOO_SHORT, USERNAME_MAX_LENGTH } from '@shared/staff-account';

/** Back to the dashboard 1.5 s after the account is created. */
export const RETURN_DELAY_MS = 1500;

/** /admin/create-staff: any staff member can add a (regular) staff account. */
export default function CreateStaffPage() {
  useAdminSession();
  const { createStaffAccount } = useStaffActions();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [created, setCreated] = useState(false);
  const returnTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const { submitting, createAccount } = useStaffCreation(createStaffAccount, () => {
    setUsername('');
    setPassword('');
    setCreated(true);
    returnTimer.current = setTimeout(() => void navigate('/admin'), RETURN_DELAY_MS);
  });
  const ids = { username: useId(), password: useId(), problem: useId() };

  useEffect(() => () => clearTimeout(returnTimer.current), []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!username.trim() || !password) return setProblem('Please fill in all fields');
    if (isPasswordTooShort(password)) return setProblem(PASSWORD_TOO_SHORT);
    setProblem(null);
    await createAccount(username, password);
  };

  return (
    <PageShell width="md">
      <AdminPageHeader title="Create Staff Account" subtitle="Add a staff member who can use the dashboard" back />
      <Card>
        <CardContent>
          <form noValidate className="flex flex-col gap-4" onSubmit={(event) => void submit(event)}>
            {problem ? (
              <Alert variant="danger" id={ids.problem}>
                {problem}
              </Alert>
            ) : null}
            {created ? (
              <Alert variant="success" title="Staff account created">
                Returning to the dashboard...
              </Alert>
            ) : null}
            <TextField
              id={ids.username}
              label="Username"
              name="username"
              autoComplete="off"
              maxLength={USERNAME_MAX_LENGTH}
              value={username}
              disabled={submitting || created}
              onChange={(event) => setUsername(event.target.value)}
              invalid={problem === 'Please fill in all fields' && !username.trim()}
            />
            <TextField
              id={ids.password}
              label="Password"
              name="password"
              type="password"
              autoComplete="new-password"
              value={password}
              disabled={submitting || created}
              onChange={(event) => setPassword(event.target.value)}
              hint={PASSWORD_LENGTH_HINT}
              invalid={problem !== null && (!password || isPasswordTooShort(password))}
            />
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Link to="/admin" className={buttonVariants({ variant: 'secondary' })}>
                Cancel
              </Link>
              <Button type="submit" loading={submitting} disabled={created}>
                {submitting ? 'Creating...' : 'Create Staff Account'}
              </Button>
            </div>
          </form>
        </CardContent>
      </Card>
    </PageShell>
  );
}
