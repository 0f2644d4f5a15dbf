import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { APPEAL_MESSAGE_MAX, checkAppealText, type VisitorAppealView } from '@shared/appeals';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CheckIcon, WarningIcon } from '@/components/ui/icons';
import { Label } from '@/components/ui/label';
import { CenteredCardPage } from '@/components/ui/page-shell';
import { Spinner } from '@/components/ui/spinner';
import { Textarea } from '@/components/ui/textarea';
import { apiErrorMessage, isApiStatus } from '@/lib/api';
import { APPEAL_SIGN_IN_PATH, fileAppeal, useAppealState } from '../api';

const STANDING_SENTENCE = {
  certain_alt: 'Your verification was denied: this Discord account is linked to another account that is already verified on this server.',
  limited: 'You have Limited Access: your connection looked like a VPN or proxy, or a server rule applied.',
} as const;

const formatDate = (iso: string) => new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/**
 * /appeal: a visitor denied as a certain alt or kept at Limited Access asks staff to
 * review, and later sees what they decided. Works from the session of the sign-in that
 * produced the verdict, or from a new Discord sign-in that verifies nothing.
 */
export function AppealPage() {
  const { data, error, isLoading, mutate } = useAppealState();
  const [params] = useSearchParams();

  if (isLoading) {
    return (
      <CenteredCardPage title="Ask Staff to Review" documentTitle="Appeal">
        <div className="flex justify-center text-3xl text-muted">
          <Spinner />
        </div>
      </CenteredCardPage>
    );
  }

  if (isApiStatus(error, 401) || (!data && !error)) {
    return (
      <CenteredCardPage
        title="Ask Staff to Review"
        description="Sign in with Discord so we know which account your request is about. This does not verify you again or change anything."
        footer={
          <Button size="lg" fullWidth onClick={() => window.location.assign(APPEAL_SIGN_IN_PATH)}>
            Sign in with Discord again
          </Button>
        }
      >
        {params.get('signIn') === 'failed' ? (
          <Alert variant="danger" title="Sign-in did not finish">
            <p>Discord did not confirm your account. Please try again.</p>
          </Alert>
        ) : null}
      </CenteredCardPage>
    );
  }

  if (isApiStatus(error, 404)) {
    return (
      <CenteredCardPage
        title="No Verification Found"
        icon={<WarningIcon className="text-warning" />}
        description="There is no verification record for this Discord account, so there is nothing to review. Verify on the website first."
        footer={
          <Button size="lg" fullWidth onClick={() => window.location.assign('/')}>
            Go to Verification
          </Button>
        }
      />
    );
  }

  if (!data) {
    return (
      <CenteredCardPage
        title="Ask Staff to Review"
        icon={<WarningIcon className="text-danger" />}
        description="Your appeal could not be loaded. Please reload the page."
      />
    );
  }

  const { appeal, standing, canAppeal } = data;
  const appealable = standing === 'certain_alt' || standing === 'limited';
  return (
    <CenteredCardPage title="Ask Staff to Review" description={appealable ? STANDING_SENTENCE[standing] : undefined} width="md">
      <div className="flex flex-col gap-5">
        <p className="text-sm text-muted">
          Signed in as <strong className="font-semibold text-heading">{data.username}</strong>
        </p>
        {appeal ? <AppealStatus appeal={appeal} /> : null}
        {canAppeal ? (
          <AppealForm again={appeal !== null} onFiled={() => mutate()} />
        ) : !appealable && !appeal ? (
          <Alert variant="info" title="Nothing to review">
            <p>Your verification was not denied or limited, so there is nothing to ask staff about.</p>
          </Alert>
        ) : null}
      </div>
    </CenteredCardPage>
  );
}

function AppealStatus({ appeal }: { appeal: VisitorAppealView }) {
  const message = (
    <blockquote className="mt-2 rounded-md bg-surface-sunken/60 p-3 text-sm break-words whitespace-pre-wrap">{appeal.message}</blockquote>
  );
  if (appeal.status === 'open') {
    return (
      <Alert variant="info" title="Your request is waiting for staff">
        <p>Sent {formatDate(appeal.createdAt)}. You can close this page and come back later to see the answer.</p>
        {message}
      </Alert>
    );
  }
  if (appeal.status === 'approved') {
    return (
      <div role="status" className="flex gap-3 rounded-lg border border-success/60 bg-success/10 p-4 text-sm">
        <CheckIcon className="mt-0.5 size-5 shrink-0 text-success" />
        <div className="flex flex-col gap-1">
          <p className="font-semibold text-heading">Staff approved your request</p>
          <p>You are getting the Verified role in the Discord server: all channels will appear in a moment.</p>
          <p>
            Removed from the server when you were denied?{' '}
            <a href="/" className="font-medium text-blurple underline underline-offset-2">
              Verify again
            </a>{' '}
            to join it with the Verified role.
          </p>
        </div>
      </div>
    );
  }
  return (
    <Alert variant="danger" title="Staff reviewed your request and kept the decision">
      <p>Decided {appeal.decidedAt ? formatDate(appeal.decidedAt) : ''}. Their reason:</p>
      <blockquote className="mt-1 rounded-md bg-surface/80 p-3 text-sm break-words whitespace-pre-wrap">{appeal.reason}</blockquote>
    </Alert>
  );
}

function AppealForm({ again, onFiled }: { again: boolean; onFiled: () => Promise<unknown> }) {
  const [message, setMessage] = useState('');
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkAppealText(message, APPEAL_MESSAGE_MAX);
    if (!checked.ok) {
      setProblem(checked.error);
      return;
    }
    setSending(true);
    setProblem(null);
    try {
      await fileAppeal(checked.text);
      await onFiled();
    } catch (error) {
      setProblem(apiErrorMessage(error, 'Your request could not be sent. Please try again.'));
    } finally {
      setSending(false);
    }
  };

  return (
    <form className="flex flex-col gap-3" onSubmit={(event) => void submit(event)} noValidate>
      <Label htmlFor="appeal-message">{again ? 'Send a new request to staff' : 'Tell staff why this should be reviewed'}</Label>
      <Textarea
        id="appeal-message"
        value={message}
        maxLength={APPEAL_MESSAGE_MAX}
        rows={5}
        placeholder="For example: my brother and I share this computer; this is my only account."
        aria-describedby="appeal-message-help"
        aria-invalid={problem ? true : undefined}
        onChange={(event) => {
          setMessage(event.target.value);
          setProblem(null);
        }}
      />
      <p id="appeal-message-help" className="flex justify-between gap-2 text-xs text-muted">
        <span>Plain text only. Staff see exactly what you write.</span>
        <span>
          {message.length}/{APPEAL_MESSAGE_MAX}
        </span>
      </p>
      {problem ? (
        <p role="alert" className="text-sm text-danger">
          {problem}
        </p>
      ) : null}
      <Button type="submit" size="lg" fullWidth loading={sending}>
        {sending ? 'Sending...' : 'Ask staff to review'}
      </Button>
    </form>
  );
}
