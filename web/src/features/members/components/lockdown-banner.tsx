import { useId, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { releaseHeld, setLockdown, useLockdown } from '../api/lockdown';
import { formatDate } from '@/features/admin-shell';
import { alarmNumbers, discordPauseLine, lockdownEndEffects, lockdownStartEffects, verificationLevelLine } from '../lockdown-text';

/** An alarm counts as current for an hour: the banner stays up that long. */
const ALARM_SHOWN_MS = 60 * 60 * 1000;

/** A confirmation waiting for an answer: starting the lockdown, or ending it (releasing the held members or not). */
type Pending = { kind: 'start' } | { kind: 'end'; release: boolean } | null;

function EffectList({ lines }: { lines: string[] }) {
  return (
    <ul className="list-disc space-y-1 pl-5 text-sm">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}

/** The top of the dashboard: a current raid alarm, the lockdown switch and the members it holds. */
export function LockdownBanner() {
  const { data, mutate } = useLockdown();
  const { toast } = useToast();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending>(null);
  const reasonId = useId();
  const explainId = useId();
  if (!data) return null;

  const run = async (work: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      await work();
      toast({ title: done });
      setReason('');
      await mutate();
    } catch (error) {
      toast({ variant: 'destructive', title: apiErrorMessage(error, 'The lockdown could not be changed') });
      throw error;
    } finally {
      setBusy(false);
    }
  };

  const alarm = data.alarms[0];
  const alarmCurrent = alarm && Date.now() - new Date(alarm.raisedAt).getTime() < ALARM_SHOWN_MS;
  const { lockdown, held, plan, discordPause } = data;
  const pauseLine = lockdown.on ? discordPauseLine(discordPause) : null;
  const levelLine = lockdown.on && data.verificationLevel ? verificationLevelLine(data.verificationLevel) : null;
  const confirm = async () => {
    if (pending?.kind === 'start') await run(() => setLockdown({ on: true, reason: reason.trim() || null }), 'Lockdown is on');
    else if (pending?.kind === 'end')
      await run(
        () => setLockdown({ on: false, release: pending.release }),
        pending.release ? 'Lockdown ended; held members released' : 'Lockdown ended; held members stay held',
      );
  };

  return (
    <section aria-label="Raid alarm and lockdown" className="mb-6 flex flex-col gap-3">
      {alarmCurrent ? (
        <Alert variant="danger" title="Raid alarm">
          <p>
            {alarmNumbers(alarm)}. Raised {formatDate(alarm.raisedAt)}
            {alarm.lockdownStarted ? '; lockdown switched on automatically.' : '.'}
          </p>
        </Alert>
      ) : null}
      {lockdown.on ? (
        <Alert variant="warning" title="Lockdown is on">
          <p>
            {lockdown.reason ? `${lockdown.reason}. ` : ''}Since {lockdown.since ? formatDate(lockdown.since) : 'now'}
            {lockdown.by ? ` (${lockdown.by})` : ''}.{' '}
            {plan.action === 'review' ? 'New verifications wait for staff review' : 'New verifications get Limited Access'}; members
            verified before are untouched.
          </p>
          {pauseLine ? (
            <p className={pauseLine.tone === 'error' ? 'mt-1 font-medium text-danger' : 'mt-1'} data-testid="discord-pause">
              {pauseLine.text}
            </p>
          ) : null}
          {levelLine ? (
            <p className={levelLine.tone === 'error' ? 'mt-1 font-medium text-danger' : 'mt-1'} data-testid="verification-level">
              {levelLine.text}
            </p>
          ) : null}
          <p className="mt-1">Held for review: {held}</p>
          <div className="mt-3 flex flex-wrap gap-2">
            <Button size="sm" disabled={busy} onClick={() => setPending({ kind: 'end', release: true })}>
              End Lockdown and Release
            </Button>
            <Button size="sm" variant="secondary" disabled={busy} onClick={() => setPending({ kind: 'end', release: false })}>
              End Lockdown, Keep Held
            </Button>
          </div>
        </Alert>
      ) : (
        <div className="flex flex-col gap-2">
          <p id={explainId} className="text-sm text-muted">
            <span className="font-medium text-fg">What Start Lockdown does:</span> {lockdownStartEffects(plan).join(' ')}
          </p>
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
            <label htmlFor={reasonId} className="sr-only">
              Lockdown reason
            </label>
            <Input
              id={reasonId}
              placeholder="Lockdown reason (optional)"
              maxLength={200}
              value={reason}
              disabled={busy}
              onChange={(e) => setReason(e.target.value)}
              className="sm:max-w-xs"
            />
            <Button
              size="sm"
              variant="destructive"
              disabled={busy}
              aria-describedby={explainId}
              onClick={() => setPending({ kind: 'start' })}
            >
              Start Lockdown
            </Button>
            {held > 0 ? (
              <Button
                size="sm"
                variant="secondary"
                disabled={busy}
                onClick={() => void run(releaseHeld, 'Held members released').catch(() => undefined)}
              >
                Release {held} Held
              </Button>
            ) : null}
          </div>
        </div>
      )}
      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(open) => {
          if (!open) setPending(null);
        }}
        title={pending?.kind === 'start' ? 'Start Lockdown?' : pending?.release ? 'End Lockdown and Release?' : 'End Lockdown, Keep Held?'}
        description={pending?.kind === 'start' ? 'Until staff end it:' : 'When the lockdown ends:'}
        confirmLabel={pending?.kind === 'start' ? 'Start Lockdown' : 'End Lockdown'}
        pendingLabel={pending?.kind === 'start' ? 'Starting...' : 'Ending...'}
        destructive={pending?.kind === 'start'}
        pending={busy}
        onConfirm={confirm}
      >
        <EffectList
          lines={pending?.kind === 'start' ? lockdownStartEffects(plan) : pending ? lockdownEndEffects(discordPause, pending.release) : []}
        />
      </ConfirmDialog>
    </section>
  );
}
