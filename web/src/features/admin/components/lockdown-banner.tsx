import { useId, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { apiErrorMessage } from '@/lib/api';
import { releaseHeld, setLockdown, useLockdown, type RaidAlarm } from '../api/lockdown';
import { formatDate } from '../format-date';

/** An alarm counts as current for an hour: the banner stays up that long. */
const ALARM_SHOWN_MS = 60 * 60 * 1000;

function alarmNumbers(alarm: RaidAlarm): string {
  return `${alarm.verifications} verifications in ${alarm.windowMinutes} min (usual ${alarm.baseline.toFixed(1)}), ${alarm.youngPercent}% young accounts, ${alarm.sharedPercent}% sharing a device or address`;
}

/** The top of the dashboard: a current raid alarm, the lockdown switch and the members it holds. */
export function LockdownBanner() {
  const { data, mutate } = useLockdown();
  const { toast } = useToast();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const reasonId = useId();
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
    } finally {
      setBusy(false);
    }
  };

  const alarm = data.alarms[0];
  const alarmCurrent = alarm && Date.now() - new Date(alarm.raisedAt).getTime() < ALARM_SHOWN_MS;
  const { lockdown, held } = data;

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
            {lockdown.by ? ` (${lockdown.by})` : ''}. New verifications get Limited Access or wait for review; members verified before are untouched.
          </p>
          <p className="mt-1">Held for review: {held}</p>
          <div className="mt-3 flex flex-wrap gap-2">
            <Button size="sm" disabled={busy} onClick={() => void run(() => setLockdown({ on: false, release: true }), 'Lockdown ended; held members released')}>
              End Lockdown and Release
            </Button>
            <Button size="sm" variant="secondary" disabled={busy} onClick={() => void run(() => setLockdown({ on: false, release: false }), 'Lockdown ended; held members stay held')}>
              End Lockdown, Keep Held
            </Button>
          </div>
        </Alert>
      ) : (
        <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
          <label htmlFor={reasonId} className="sr-only">
            Lockdown reason
          </label>
          <Input id={reasonId} placeholder="Lockdown reason (optional)" maxLength={200} value={reason} disabled={busy} onChange={(e) => setReason(e.target.value)} className="sm:max-w-xs" />
          <Button size="sm" variant="destructive" disabled={busy} onClick={() => void run(() => setLockdown({ on: true, reason: reason.trim() || null }), 'Lockdown is on')}>
            Start Lockdown
          </Button>
          {held > 0 ? (
            <Button size="sm" variant="secondary" disabled={busy} onClick={() => void run(releaseHeld, 'Held members released')}>
              Release {held} Held
            </Button>
          ) : null}
        </div>
      )}
    </section>
  );
}
