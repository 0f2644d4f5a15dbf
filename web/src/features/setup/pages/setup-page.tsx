import { useId, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Alert } from '@/components/ui/alert';
import { Button, buttonVariants } from '@/components/ui/button';
import { CenteredCardPage } from '@/components/ui/page-shell';
import { TextField } from '@/components/ui/text-field';
import { ApiError, apiErrorMessage } from '@/lib/api';
import { useCreateOwnerAccount, useSetupAvailability } from '../api';
import { isPasswordTooShort, PASSWORD_LENGTH_HINT, PASSWORD_TOO_SHORT, USERNAME_MAX_LENGTH } from '@shared/staff-account';

type SetupState = { phase: 'idle' } | { phase: 'loading' } | { phase: 'success'; username: string } | { phase: 'error'; message: string };

interface FieldErrors {
  setupCode?: string;
  username?: string;
  password?: string;
}

/** The server's error, or 'Setup failed'; 'Failed to connect to server' when the request never got an answer. */
function setupFailureMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Failed to connect to server';
  return apiErrorMessage(error, 'Setup failed');
}

/**
 * /setup: creates the first (owner) staff account with the one-time code the server printed at
 * start-up. No default credentials exist; once an account exists the page says setup is closed.
 */
export default function SetupPage() {
  const { data: availability } = useSetupAvailability();
  const createOwnerAccount = useCreateOwnerAccount();
  const navigate = useNavigate();
  const [state, setState] = useState<SetupState>({ phase: 'idle' });
  const [setupCode, setSetupCode] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const ids = { code: useId(), username: useId(), password: useId() };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const errors: FieldErrors = {};
    if (!setupCode.trim()) errors.setupCode = 'Setup code is required';
    if (!username.trim()) errors.username = 'Username is required';
    if (!password) errors.password = 'Password is required';
    else if (isPasswordTooShort(password)) errors.password = PASSWORD_TOO_SHORT;
    setFieldErrors(errors);
    if (Object.keys(errors).length > 0) return;
    setState({ phase: 'loading' });
    try {
      const result = await createOwnerAccount({ setupCode: setupCode.trim(), username: username.trim(), password });
      setPassword('');
      setSetupCode('');
      setState({ phase: 'success', username: result?.username ?? username.trim() });
    } catch (error) {
      setState({ phase: 'error', message: setupFailureMessage(error) });
    }
  };

  if (state.phase === 'success') {
    return (
      <CenteredCardPage
        title="Admin Setup"
        footer={
          <Button size="lg" fullWidth onClick={() => void navigate('/admin/login')}>
            Go to Login
          </Button>
        }
      >
        <Alert variant="success" title="Setup complete">
          <p>
            The owner account <strong>{state.username}</strong> has been created. Sign in with the username and password you just chose.
          </p>
        </Alert>
      </CenteredCardPage>
    );
  }

  if (state.phase === 'error') {
    return (
      <CenteredCardPage
        title="Admin Setup"
        description="The admin account could not be created"
        footer={
          <Button size="lg" fullWidth onClick={() => setState({ phase: 'idle' })}>
            Try Again
          </Button>
        }
      >
        <Alert variant="danger">
          <p>{state.message}</p>
        </Alert>
      </CenteredCardPage>
    );
  }

  if (availability?.available === false) {
    return (
      <CenteredCardPage
        title="Admin Setup"
        description="Setup is closed"
        footer={
          <Link to="/admin/login" className={buttonVariants({ size: 'lg', fullWidth: true })}>
            Go to Login
          </Link>
        }
      >
        <p className="text-sm text-muted">
          An admin account already exists, so setup is closed. Staff accounts are created from the dashboard.
        </p>
      </CenteredCardPage>
    );
  }

  const loading = state.phase === 'loading';
  return (
    <CenteredCardPage title="Admin Setup" description="Create the first admin account. It becomes the protected owner account.">
      <form noValidate className="flex flex-col gap-4" onSubmit={(event) => void submit(event)} aria-busy={loading}>
        <p className="text-sm text-muted">
          Enter the one-time setup code that the server printed when it started (also saved in <code>setup-code.txt</code> in its data
          directory), then choose the admin username and password.
        </p>
        <TextField
          id={ids.code}
          label="Setup code"
          name="setupCode"
          autoComplete="one-time-code"
          spellCheck={false}
          value={setupCode}
          disabled={loading}
          onChange={(event) => setSetupCode(event.target.value)}
          error={fieldErrors.setupCode}
        />
        <TextField
          id={ids.username}
          label="Username"
          name="username"
          autoComplete="username"
          maxLength={USERNAME_MAX_LENGTH}
          value={username}
          disabled={loading}
          onChange={(event) => setUsername(event.target.value)}
          error={fieldErrors.username}
        />
        <TextField
          id={ids.password}
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          value={password}
          disabled={loading}
          onChange={(event) => setPassword(event.target.value)}
          error={fieldErrors.password}
          hint={PASSWORD_LENGTH_HINT}
        />
        <Button type="submit" size="lg" fullWidth loading={loading}>
          {loading ? 'Creating...' : 'Create Admin Account'}
        </Button>
      </form>
    </CenteredCardPage>
  );
}
