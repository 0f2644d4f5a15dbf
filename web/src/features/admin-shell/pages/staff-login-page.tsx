import { useId, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CenteredCardPage } from '@/components/ui/page-shell';
import { TextField } from '@/components/ui/text-field';
import { ApiError, apiErrorMessage } from '@/lib/api';
import { useStaffAuth } from '../api/session';

interface LoginErrors {
  username?: string;
  password?: string;
  form?: string;
}

/** 'Invalid credentials' whenever the server says success is false; otherwise its error, or 'Login failed' (docs/behaviour.md#validation-and-messages). */
function loginFailureMessage(error: unknown): string {
  if (error instanceof ApiError) {
    try {
      const body = JSON.parse(error.bodyText) as { success?: unknown };
      if (body && body.success === false) return 'Invalid credentials';
    } catch {
      // not JSON: fall through to the generic message
    }
  }
  return apiErrorMessage(error, 'Login failed');
}

/** /admin/login. */
export default function StaffLoginPage() {
  const { login } = useStaffAuth();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<LoginErrors>({});
  const [submitting, setSubmitting] = useState(false);
  const usernameId = useId();
  const passwordId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next: LoginErrors = {};
    if (!username.trim()) next.username = 'Username is required';
    if (!password) next.password = 'Password is required';
    setErrors(next);
    if (next.username || next.password) return;
    setSubmitting(true);
    try {
      const result = await login({ username: username.trim(), password });
      if (result?.success === false) {
        setErrors({ form: 'Invalid credentials' });
        setSubmitting(false);
        return;
      }
      void navigate('/admin', { replace: true });
    } catch (error) {
      setErrors({ form: loginFailureMessage(error) });
      setSubmitting(false);
    }
  };

  return (
    <CenteredCardPage title="Staff Login" description="Sign in to the staff dashboard." width="sm">
      <form noValidate className="flex flex-col gap-4" onSubmit={(event) => void submit(event)}>
        {errors.form ? <Alert variant="danger">{errors.form}</Alert> : null}
        <TextField
          id={usernameId}
          label="Username"
          name="username"
          autoComplete="username"
          required
          value={username}
          onChange={(event) => setUsername(event.target.value)}
          error={errors.username}
        />
        <TextField
          id={passwordId}
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          error={errors.password}
        />
        <Button type="submit" size="lg" fullWidth loading={submitting}>
          {submitting ? 'Signing in...' : 'Sign In'}
        </Button>
      </form>
    </CenteredCardPage>
  );
}
