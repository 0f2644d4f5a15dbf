import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { MINIMUM_AGE, MINIMUM_AGE_EU } from '@shared/policy';
import { Avatar } from '@/components/ui/avatar';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import { ShieldCheckIcon } from '@/components/ui/icons';
import { CenteredCardPage } from '@/components/ui/page-shell';
import { useToast } from '@/components/ui/toast';
import { useRetentionDays, useServerIdentity } from '@/features/config/api';
import { collectFingerprint } from '@/features/fingerprint/fingerprint-collector';
import { navigateToUrl } from '@/lib/navigation';
import { fetchConsentToken, OAUTH_START_PATH, recordConsent } from '../api';
import { readStoredBrowserToken, storeBrowserToken } from '../browser-token';

export function ConsentPage() {
  const [consented, setConsented] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const { toast } = useToast();
  const retentionDays = useRetentionDays();
  const server = useServerIdentity();
  const tokenRequest = useRef<Promise<string> | null>(null);
  const checkboxId = useId();
  const hintId = useId();

  const requestToken = useCallback(() => {
    const request = fetchConsentToken();
    request.catch(() => undefined); // Reported when the visitor clicks, not before.
    tokenRequest.current = request;
    return request;
  }, []);

  // The token is fetched as soon as the page shows, so the click does not wait for it.
  useEffect(() => {
    void requestToken();
  }, [requestToken]);

  // Coming Back from Discord's sign-in restores this page from the back/forward cache: start over.
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      setSubmitting(false);
      void requestToken();
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, [requestToken]);

  const verify = async () => {
    setSubmitting(true);
    try {
      const token = await (tokenRequest.current ?? requestToken()).catch(() => requestToken());
      const { fingerprintData, fingerprintHash } = await collectFingerprint();
      const browserToken = readStoredBrowserToken();
      const answer = await recordConsent({
        consent: true,
        token,
        fingerprintData,
        fingerprintHash,
        ...(browserToken ? { browserToken } : {}),
      });
      storeBrowserToken(answer?.browserToken);
      navigateToUrl(OAUTH_START_PATH); // The page unloads; the button stays busy until then.
    } catch {
      setSubmitting(false);
      toast({ variant: 'destructive', title: 'Error', description: 'Failed to record consent. Please try again.' });
      void requestToken(); // The token is single use: the next try gets a fresh one.
    }
  };

  return (
    <CenteredCardPage
      title="Server Verification"
      icon={<ShieldCheckIcon className="text-blurple" />}
      description="Verify your Discord account to join the server. It takes less than a minute."
      footer={
        <div className="flex w-full flex-col gap-2">
          <Button
            size="lg"
            fullWidth
            disabled={!consented}
            loading={submitting}
            aria-describedby={consented ? undefined : hintId}
            onClick={() => void verify()}
          >
            Verify with Discord
          </Button>
          {consented ? null : (
            <p id={hintId} className="text-center text-sm text-muted">
              Please check the consent box above to continue
            </p>
          )}
        </div>
      }
    >
      <div className="flex flex-col gap-5 text-sm leading-relaxed">
        {server ? (
          <section aria-label="The server you are joining" className="flex items-center gap-3 rounded-lg border border-border p-3">
            <Avatar src={server.iconUrl} name={server.name} size="md" />
            <p className="min-w-0 break-words">
              You are joining <strong className="text-fg">{server.name}</strong> on Discord.
            </p>
          </section>
        ) : null}
        <section aria-labelledby="consent-data-heading" className="rounded-lg bg-surface-sunken/60 p-4">
          <h2 id="consent-data-heading" className="mb-2 text-base font-semibold">
            What verification records
          </h2>
          <ul className="list-disc space-y-1 pl-5">
            <li>Your Discord username, user ID and avatar</li>
            <li>A keyed (salted) hash of your IP address — never the address itself</li>
            <li>A hash of your device&apos;s browser fingerprint</li>
            <li>
              A keyed hash of a random browser token this site stores in your browser (a cookie and local storage) to recognise the same
              browser
            </li>
            <li>Whether a VPN or proxy was detected, and when you verified and agreed to the rules</li>
          </ul>
          <p className="mt-3">
            We use this only to keep out alternate accounts, raids and VPN abuse. To check for a VPN or proxy, your IP address is sent to a
            third-party proxy-check service. Your data is deleted automatically after {retentionDays} days.
          </p>
        </section>

        <p>
          You must be at least {MINIMUM_AGE} years old ({MINIMUM_AGE_EU} in the EU) to verify. Read our{' '}
          <Link to="/terms">Terms of Service</Link> and <Link to="/privacy">Privacy Policy</Link>.
        </p>

        <div className="flex items-start gap-3 rounded-lg border border-border p-4">
          <Checkbox id={checkboxId} checked={consented} onCheckedChange={setConsented} disabled={submitting} className="mt-0.5" />
          <label htmlFor={checkboxId} className="cursor-pointer text-fg">
            I am at least {MINIMUM_AGE} years old ({MINIMUM_AGE_EU} in the EU), I agree to the Terms of Service and the Privacy Policy, and
            I consent to the collection of the data above for verification.
          </label>
        </div>
      </div>
    </CenteredCardPage>
  );
}
