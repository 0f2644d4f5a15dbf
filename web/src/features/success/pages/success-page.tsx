import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { LIMITED_ACCESS_CHANNELS } from '@shared/policy';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { WarningIcon } from '@/components/ui/icons';
import { CenteredCardPage } from '@/components/ui/page-shell';
import { Spinner } from '@/components/ui/spinner';
import { useConfig } from '@/features/config/api';
import { closeWindow } from '@/lib/navigation';
import { useAdmission, useVerificationChannel, useVpnStatus } from '../api';
import { openVerificationChannel } from '../open-verification-channel';

export function SuccessPage() {
  const vpnStatus = useVpnStatus();
  const channel = useVerificationChannel();
  const admission = useAdmission();
  const { data: config } = useConfig();
  const [closeAttempted, setCloseAttempted] = useState(false);
  const navigate = useNavigate();

  if (vpnStatus.isLoading) {
    return (
      <CenteredCardPage title="Checking your verification..." documentTitle="Verification">
        <div className="flex justify-center text-3xl text-muted">
          <Spinner />
        </div>
      </CenteredCardPage>
    );
  }

  // The variant follows the VPN status; if the status cannot be read, the normal page shows
  // (the bot still applies the right role when the member clicks 'Complete Verification!').
  const limited = vpnStatus.data?.vpnDetected === true;
  const links = channel.data;
  const linksReady = Boolean(links?.appUrl || links?.webUrl);
  // a server rule (lockdown, account age) that limits or holds this verification, in its own words
  const gate = admission.data?.gate;
  const gateNotice = gate?.message ? (
    <Alert variant="warning" title={gate.action === 'review' ? 'Waiting for staff review' : 'Limited Access for now'}>
      <p>{gate.message}</p>
    </Alert>
  ) : null;

  const askForReview = (
    <Button
      size="lg"
      variant={vpnStatus.data?.standing === 'certain_alt' ? 'primary' : 'secondary'}
      fullWidth
      onClick={() => navigate('/appeal')}
    >
      Ask staff to review
    </Button>
  );

  // a certain alt: the failure-style card and the way to appeal, never the success text
  if (vpnStatus.data?.standing === 'certain_alt') {
    return (
      <CenteredCardPage
        title="Verification Denied"
        icon={<WarningIcon className="text-danger" />}
        description="This Discord account is linked to another account that is already verified on this server, so it can't be given access."
        footer={<div className="flex w-full flex-col gap-3">{askForReview}</div>}
      >
        <p className="text-center text-sm text-muted">
          If this is a mistake (for example, a shared computer or family members on the same network), ask staff to review it.
        </p>
      </CenteredCardPage>
    );
  }

  const actions = (
    <div className="flex w-full flex-col gap-3">
      {linksReady && links ? (
        <Button size="lg" fullWidth onClick={() => openVerificationChannel(links, { preferWeb: config?.sandbox === true })}>
          Open Verification Channel
        </Button>
      ) : null}
      <Button
        size="lg"
        variant="secondary"
        fullWidth
        onClick={() => {
          closeWindow();
          setCloseAttempted(true); // Still here: browsers only let a page close windows that a script opened.
        }}
      >
        Close This Window
      </Button>
      {closeAttempted ? (
        <p role="status" className="text-center text-sm text-muted">
          If this window is still open, you can close it yourself.
        </p>
      ) : null}
    </div>
  );

  if (limited) {
    const provider = vpnStatus.data?.vpnProvider;
    return (
      <CenteredCardPage
        title="Website Step Complete - Limited Access Only"
        icon={<WarningIcon className="text-warning" />}
        footer={actions}
      >
        <div className="flex flex-col gap-5">
          {gateNotice}
          <Alert variant="warning" title="VPN or proxy detected">
            <p>
              Your connection appears to come through a VPN or proxy
              {provider ? (
                <>
                  {' '}
                  (<strong className="font-semibold">{provider}</strong>)
                </>
              ) : null}
              .
            </p>
            <p>
              Limited Access covers only two channels: <ChannelName name={LIMITED_ACCESS_CHANNELS[0]} /> and{' '}
              <ChannelName name={LIMITED_ACCESS_CHANNELS[1]} />.
            </p>
            <p>To get full access, disconnect your VPN and verify again.</p>
          </Alert>
          <FinalSteps outcome={gate?.action === 'review' ? 'review' : 'limited'} />
        </div>
        <div className="mt-5 flex flex-col gap-2 border-t border-border pt-5">
          <p className="text-sm text-muted">Not using a VPN, or need full access for another reason?</p>
          {askForReview}
        </div>
      </CenteredCardPage>
    );
  }

  return (
    <CenteredCardPage
      // the title's own ✓ (the spec's copy) is the page's one check mark: no check icon above it
      title="Website Verification Complete! ✓"
      description="You've been added to the Discord server!"
      footer={actions}
    >
      {gateNotice}
      <FinalSteps outcome={gate?.action ?? 'full'} />
    </CenteredCardPage>
  );
}

function ChannelName({ name }: { name: string }) {
  return <strong className="font-semibold whitespace-nowrap">#{name}</strong>;
}

/**
 * The 4-step guide to finish in Discord. The last step says what the button will give:
 * full access, Limited Access (VPN, or a server rule such as lockdown or account age),
 * or nothing until staff release a verification held for review.
 */
function FinalSteps({ outcome }: { outcome: 'full' | 'limited' | 'review' }) {
  const steps = [
    'Open the verification channel in Discord (use the button below).',
    'Read the server rules posted there.',
    <>
      Click the <strong className="font-semibold">Complete Verification!</strong> button in that channel.
    </>,
    outcome === 'review' ? (
      'Staff then review your verification; you get access once they release it.'
    ) : outcome === 'limited' ? (
      <>
        You then get Limited Access: <ChannelName name={LIMITED_ACCESS_CHANNELS[0]} /> and <ChannelName name={LIMITED_ACCESS_CHANNELS[1]} />
        .
      </>
    ) : (
      'You then get access to all channels.'
    ),
  ];
  return (
    <section aria-labelledby="final-steps-heading">
      <h2 id="final-steps-heading" className="mb-3 text-base font-semibold">
        Finish in Discord
      </h2>
      <ol className="flex flex-col gap-3 text-sm">
        {steps.map((step, index) => (
          <li key={index} className="flex items-start gap-3">
            <span
              aria-hidden="true"
              className="flex size-6 shrink-0 items-center justify-center rounded-full bg-blurple text-xs font-bold text-white"
            >
              {index + 1}
            </span>
            <span className="pt-0.5">{step}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
