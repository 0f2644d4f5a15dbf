import type { LockdownStatus, RaidAlarm } from './api/lockdown';
import { formatDateTime } from '@/features/admin-shell';
import { levelName } from '@shared/verification-levels';

type Plan = LockdownStatus['plan'];
type Pause = LockdownStatus['discordPause'];
type Level = LockdownStatus['verificationLevel'];

/** The banner's line about the verification level while the lockdown holds (null: not raised, nor asked). */
export function verificationLevelLine(level: Level): { tone: 'ok' | 'waiting' | 'error'; text: string } | null {
  if (level.want !== 'raise' || level.target === null) return null;
  if (level.call?.status === 'failed')
    return {
      tone: 'error',
      text: `Discord refused to raise the verification level: ${level.call.error ?? 'no reason given'}. The lockdown still holds in Gatekeeper.`,
    };
  if (level.call?.status === 'done') {
    return level.raisedTo === null
      ? { tone: 'ok', text: `Verification level left as it was: the server already asks at least ${levelName(level.target)}.` }
      : {
          tone: 'ok',
          text: `Verification level raised in Discord to ${levelName(level.raisedTo)} (was ${levelName(level.previous)}); put back when the lockdown ends.`,
        };
  }
  return { tone: 'waiting', text: `Asking Discord to raise the verification level to ${levelName(level.target)}…` };
}

/** What Discord pauses, in words: "invites" / "invites and direct messages" (empty when nothing). */
export function pausedThings(pause: { invites: boolean; dms: boolean }): string {
  return [pause.invites ? 'invites' : null, pause.dms ? 'direct messages between members who are not friends' : null]
    .filter((part) => part !== null)
    .join(' and ');
}

/** What starting a lockdown does, one sentence each (the control's explanation and its confirmation). */
export function lockdownStartEffects(plan: Plan): string[] {
  const paused = pausedThings({ invites: plan.pauseInvites, dms: plan.pauseDms });
  return [
    plan.action === 'review'
      ? 'New verifications wait for staff review: nobody new gets a role until staff release them.'
      : 'New verifications get Limited Access instead of Verified.',
    'Members verified before keep their roles.',
    paused
      ? `Discord pauses ${paused} for this server; Gatekeeper renews the pause every few hours while the lockdown lasts.`
      : 'Discord is not asked to pause invites or direct messages (Settings → Raid alarm).',
    ...(plan.raiseVerificationLevel !== null
      ? [`Discord's verification level is raised to ${levelName(plan.raiseVerificationLevel)}, and put back when the lockdown ends.`]
      : []),
    'It lasts until staff end it, here or with /lockdown off.',
  ];
}

/** What ending the lockdown does; `release`: the held members are released at once. */
export function lockdownEndEffects(pause: Pause, release: boolean): string[] {
  const paused = pausedThings(pause);
  return [
    'New verifications get full access again.',
    paused && pause.until ? `Discord's pause of ${paused} is lifted.` : null,
    release
      ? 'Members held for review are released: those who finished verifying get their role now.'
      : 'Members held for review stay held: release them one by one or all at once later.',
  ].filter((line): line is string => line !== null);
}

/** The banner's line about the pause in Discord while the lockdown holds (null: none asked for). */
export function discordPauseLine(pause: Pause): { tone: 'ok' | 'waiting' | 'error'; text: string } | null {
  const paused = pausedThings(pause);
  if (!paused || !pause.until) return null;
  if (pause.call?.status === 'failed')
    return {
      tone: 'error',
      text: `Discord refused to pause ${paused}: ${pause.call.error ?? 'no reason given'}. The lockdown still holds in Gatekeeper.`,
    };
  if (pause.call?.status === 'done')
    return { tone: 'ok', text: `Paused in Discord: ${paused}, until ${formatDateTime(pause.until)} (renewed while the lockdown lasts).` };
  return { tone: 'waiting', text: `Asking Discord to pause ${paused}…` };
}

/** What the raid alarm saw, in one sentence. */
export function alarmNumbers(alarm: RaidAlarm): string {
  if (alarm.reasons.includes('discord_detected')) return "Discord's own raid detection flagged this server";
  return `${alarm.verifications} verifications in ${alarm.windowMinutes} min (usual ${alarm.baseline.toFixed(1)}), ${alarm.youngPercent}% young accounts, ${alarm.sharedPercent}% sharing a device or address`;
}
