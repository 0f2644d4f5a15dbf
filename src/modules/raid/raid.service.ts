import type { Executor } from '../../db/client';
import { appendAudit } from '../audit/audit.repository';
import type { OutboxPort } from '../outbox/outbox.types';
import type { LockdownState } from './lockdown-state';
import { readLockdown, writeLockdown } from './lockdown.repository';
import { evaluateRaid, raidAlarmText, type RaidPolicy, type RaidReason, type RaidWindow } from './raid-rules';
import { insertRaidAlarm } from './raid.repository';

const SYSTEM = { type: 'system' as const, id: 'raid-alarm', name: 'Raid alarm' };

/**
 * Runs the raid rule on the window ending now, inside the transaction of the verification
 * that just happened (so the newcomer is counted). One alarm per window: while an alarm
 * raised less than one window ago stands, nothing new is raised. A raised alarm is
 * stored, audited, posted to the logs channel and counted; with auto-lockdown on, the
 * lockdown starts in the same transaction.
 */
export async function checkForRaid(
  tx: Executor,
  deps: { outbox: OutboxPort; onAlarm?: (reasons: RaidReason[], lockdownStarted: boolean) => void },
  input: {
    now: Date;
    policy: RaidPolicy & { raidYoungAccountDays: number; autoLockdown: boolean };
    /**
     * the window's numbers, read by the caller in this transaction with its own reads (the admission
     * read, in the sign-in's statement); null while an alarm raised less than one window ago stands
     */
    window: RaidWindow | null;
  },
): Promise<{ raised: boolean; lockdownStarted: boolean }> {
  const { now, policy, window } = input;
  // one alarm per window: while one stands nothing is raised (and the caller's read did not count the window)
  if (window === null) return { raised: false, lockdownStarted: false };
  const verdict = evaluateRaid(window, policy);
  if (!verdict.raise) return { raised: false, lockdownStarted: false };

  let lockdownStarted = false;
  if (policy.autoLockdown && !(await readLockdown(tx, true)).on) {
    const state: LockdownState = { on: true, reason: 'raid alarm', since: now.toISOString(), by: 'Raid alarm' };
    await writeLockdown(tx, state, now);
    lockdownStarted = true;
  }
  const alarm = await insertRaidAlarm(tx, { now, windowMinutes: policy.raidWindowMinutes, window, verdict, lockdownStarted });
  const details = { alarmId: alarm.id, ...window, baseline: Math.round(verdict.baseline * 100) / 100, youngPercent: verdict.youngPercent, sharedPercent: verdict.sharedPercent, reasons: verdict.reasons, lockdownStarted };
  const logLine = deps.outbox.enqueueQuery(tx, { kind: 'log_message', event: 'staff_action', text: raidAlarmText(window, verdict, policy, lockdownStarted) });
  await appendAudit(tx, { actor: SYSTEM, action: 'raid.alarm', targetType: 'server', details }, now, [logLine]);
  if (lockdownStarted) await appendAudit(tx, { actor: SYSTEM, action: 'lockdown.on', targetType: 'server', details: { reason: 'raid alarm', automatic: true } }, now);
  deps.onAlarm?.(verdict.reasons, lockdownStarted);
  return { raised: true, lockdownStarted };
}
