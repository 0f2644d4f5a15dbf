import { sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { appendAudit } from '../audit';
import type { OutboxPort } from '../outbox';
import type { LockdownState } from './lockdown-state';
import { readLockdown, writeLockdown } from './lockdown.repository';
import { evaluateRaid, raidAlarmText, type RaidPolicy, type RaidReason, type RaidWindow } from './raid-rules';
import { insertRaidAlarm } from './raid.repository';
import type { PauseWish } from './discord-pause';
import { syncDiscordPause } from './discord-pause.repository';

const SYSTEM = { type: 'system' as const, id: 'raid-alarm', name: 'Raid alarm' };

/**
 * Runs the raid rule on the window ending now, inside the transaction of the verification
 * that just happened (so the newcomer is counted). One alarm per window: while an alarm
 * raised less than one window ago stands, nothing new is raised. A raised alarm is
 * stored, audited, posted to the logs channel (pinging the alarm role, when one is set) and counted; with auto-lockdown on, the
 * lockdown starts in the same transaction.
 */
export async function checkForRaid(
  tx: Executor,
  deps: { outbox: OutboxPort; onAlarm?: (reasons: RaidReason[], lockdownStarted: boolean) => void },
  input: {
    now: Date;
    policy: RaidPolicy & PauseWish & { raidYoungAccountDays: number; autoLockdown: boolean };
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

  const lockdownStarted = await autoLockdown(tx, deps, { now, policy, reason: 'raid alarm' });
  const alarm = await insertRaidAlarm(tx, { now, windowMinutes: policy.raidWindowMinutes, window, verdict, lockdownStarted });
  const details = {
    alarmId: alarm.id,
    ...window,
    baseline: Math.round(verdict.baseline * 100) / 100,
    youngPercent: verdict.youngPercent,
    sharedPercent: verdict.sharedPercent,
    reasons: verdict.reasons,
    lockdownStarted,
  };
  const logLine = deps.outbox.enqueueQuery(tx, {
    kind: 'log_message',
    event: 'staff_action',
    text: raidAlarmText(window, verdict, policy, lockdownStarted),
    alarm: true,
  });
  await appendAudit(tx, { actor: SYSTEM, action: 'raid.alarm', targetType: 'server', details }, now, [logLine]);
  if (lockdownStarted) await auditAutoLockdown(tx, now, 'raid alarm');
  deps.onAlarm?.(verdict.reasons, lockdownStarted);
  return { raised: true, lockdownStarted };
}

/**
 * With auto-lockdown on and the lockdown off: switches it on for an alarm (with its pause in Discord),
 * in the alarm's transaction. Whether it did (the caller audits it after the alarm: `auditAutoLockdown`).
 */
async function autoLockdown(
  tx: Executor,
  deps: { outbox: OutboxPort },
  input: { now: Date; policy: PauseWish & { autoLockdown: boolean }; reason: string },
): Promise<boolean> {
  const { now, policy, reason } = input;
  if (!policy.autoLockdown || (await readLockdown(tx, true)).on) return false;
  const state: LockdownState = { on: true, reason, since: now.toISOString(), by: 'Raid alarm' };
  await writeLockdown(tx, state, now);
  await syncDiscordPause(tx, deps, { lockdownOn: true, wish: policy, now, why: `lockdown switched on by the ${reason}` });
  return true;
}

function auditAutoLockdown(tx: Executor, now: Date, reason: string) {
  return appendAudit(tx, { actor: SYSTEM, action: 'lockdown.on', targetType: 'server', details: { reason, automatic: true } }, now);
}

/** Discord's raid detection already seen (its `raid_detected_at`): one row of `settings`, so a restart's GUILD_CREATE raises nothing twice. */
const DISCORD_RAID_KEY = 'discord_raid_detected_at';
/** A detection older than this when first seen (e.g. at the first start) is only recorded: the raid is over. */
export const DISCORD_RAID_FRESH_MS = 60 * 60 * 1000;

/**
 * Discord flagged the server (GUILD_CREATE or GUILD_UPDATE carries `incidents_data.raid_detected_at`):
 * Gatekeeper raises its own raid alarm, saying Discord detected it, once per detection, with the
 * auto-lockdown as for its own alarms. Whether an alarm was raised.
 */
export async function raiseDiscordRaidAlarm(
  tx: Executor,
  deps: { outbox: OutboxPort; onAlarm?: (reasons: RaidReason[], lockdownStarted: boolean) => void },
  input: { now: Date; detectedAt: string; policy: PauseWish & { autoLockdown: boolean; raidWindowMinutes: number } },
): Promise<boolean> {
  const { now, detectedAt, policy } = input;
  const at = Date.parse(detectedAt);
  if (Number.isNaN(at)) return false;
  const [seen] = await selectRows<{ value: string | null }>(
    tx,
    sql`select value #>> '{}' as value from settings where key = ${DISCORD_RAID_KEY} for update`,
  );
  if (seen?.value && Date.parse(seen.value) >= at) return false;
  await tx.execute(
    sql`insert into settings (key, value, updated_at) values (${DISCORD_RAID_KEY}, ${JSON.stringify(new Date(at).toISOString())}::jsonb, ${now.toISOString()}::timestamptz)
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
  );
  if (now.getTime() - at > DISCORD_RAID_FRESH_MS) return false;
  const reasons: RaidReason[] = ['discord_detected'];
  const lockdownStarted = await autoLockdown(tx, deps, { now, policy, reason: 'raid detected by Discord' });
  const window: RaidWindow = { verifications: 0, previousDay: 0, young: 0, shared: 0 };
  const alarm = await insertRaidAlarm(tx, {
    now,
    windowMinutes: policy.raidWindowMinutes,
    window,
    verdict: { raise: true, reasons, baseline: 0, youngPercent: 0, sharedPercent: 0 },
    lockdownStarted,
  });
  const text = `🚨 Raid alarm: Discord detected a raid on this server (${new Date(at).toISOString()}).${lockdownStarted ? ' Lockdown switched on automatically.' : ''}`;
  const logLine = deps.outbox.enqueueQuery(tx, { kind: 'log_message', event: 'staff_action', text, alarm: true });
  await appendAudit(
    tx,
    {
      actor: SYSTEM,
      action: 'raid.alarm',
      targetType: 'server',
      details: { alarmId: alarm.id, reasons, detectedAt: new Date(at).toISOString(), lockdownStarted },
    },
    now,
    [logLine],
  );
  if (lockdownStarted) await auditAutoLockdown(tx, now, 'raid detected by Discord');
  deps.onAlarm?.(reasons, lockdownStarted);
  return true;
}
