import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CenteredCardPage } from '@/components/ui/page-shell';
import { confirmRules } from '../api';
import { SERVER_RULES } from '../server-rules';

export function RulesPage() {
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);

  const agree = async () => {
    setConfirming(true);
    try {
      await confirmRules();
      navigate('/success');
    } catch {
      navigate('/error');
    }
  };

  return (
    <CenteredCardPage
      title="Server Rules & Guidelines"
      description="Please read the rules below. By continuing you agree to follow them."
      width="lg"
      footer={
        <Button size="lg" fullWidth loading={confirming} onClick={() => void agree()}>
          {confirming ? 'Confirming...' : 'I Agree to the Rules'}
        </Button>
      }
    >
      <ol className="flex flex-col gap-3">
        {SERVER_RULES.map((rule, index) => (
          <li key={rule.title} className="flex gap-4 rounded-lg bg-surface-sunken/60 p-4">
            <span
              aria-hidden="true"
              className="flex size-8 shrink-0 items-center justify-center rounded-full bg-blurple font-bold text-white"
            >
              {index + 1}
            </span>
            <div>
              <h2 className="font-semibold">{rule.title}</h2>
              <p className="mt-1 text-sm text-muted">{rule.description}</p>
            </div>
          </li>
        ))}
      </ol>
      <Alert variant="warning" className="mt-5">
        <p>Violations of these rules may result in warnings, mutes, kicks or permanent bans, depending on their severity.</p>
      </Alert>
    </CenteredCardPage>
  );
}
