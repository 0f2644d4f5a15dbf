import { snowflakeDate } from '../../shared/discord-snowflake';
import { type LockdownState, LOCKDOWN_OFF } from '../raid';
import { DAY_MS } from '../../shared/durations';

export { LOCKDOWN_OFF, type LockdownState };

/**
 * The admission rules that can stop a completed verification short of full access:
 * the account-age gate and the lockdown. Pure functions; the service applies them.
 */

export type GateAction = 'limited' | 'review';
export type GateRule = 'account_age' | 'lockdown';

export interface Gate {
  action: GateAction;
  rules: GateRule[];
  /** shown to staff and to the visitor */
  reason: string;
}

/** Whole days since the Discord account was created (its id carries the creation time). */
export function accountAgeDays(discordId: string, now: Date): number {
  return Math.floor((now.getTime() - snowflakeDate(discordId).getTime()) / DAY_MS);
}

/**
 * An account is too young while less than `minDays` full days have passed since it was
 * created; at exactly `minDays` days it passes. 0 turns the gate off.
 */
export function decideAgeGate(
  discordId: string,
  now: Date,
  policy: { accountAgeMinDays: number; accountAgeAction: GateAction },
): Gate | null {
  if (policy.accountAgeMinDays <= 0) return null;
  const ageMs = now.getTime() - snowflakeDate(discordId).getTime();
  if (ageMs >= policy.accountAgeMinDays * DAY_MS) return null;
  const days = Math.max(0, Math.floor(ageMs / DAY_MS));
  return {
    action: policy.accountAgeAction,
    rules: ['account_age'],
    reason: `Discord account is ${days} day${days === 1 ? '' : 's'} old; this server requires ${policy.accountAgeMinDays}`,
  };
}

export function decideLockdownGate(lockdown: LockdownState, policy: { lockdownAction: GateAction }): Gate | null {
  if (!lockdown.on) return null;
  return {
    action: policy.lockdownAction,
    rules: ['lockdown'],
    reason: `The server is in lockdown${lockdown.reason ? ` (${lockdown.reason})` : ''}`,
  };
}

/** Both rules together: review (held) wins over Limited Access; the reasons are joined. */
export function combineGates(...gates: (Gate | null)[]): Gate | null {
  const applied = gates.filter((g): g is Gate => g !== null);
  if (applied.length === 0) return null;
  return {
    action: applied.some((g) => g.action === 'review') ? 'review' : 'limited',
    rules: applied.flatMap((g) => g.rules),
    reason: applied.map((g) => g.reason).join('; '),
  };
}

/** The words the visitor sees (website and button) for a gate. */
export function gateMessage(gate: { gateAction: GateAction | null; gateReason: string | null }): string | null {
  if (gate.gateAction === 'review')
    return `Your verification is waiting for staff review: ${gate.gateReason ?? 'a server rule applies'}. You will be able to complete it once staff release it.`;
  if (gate.gateAction === 'limited') return `You have Limited Access for now: ${gate.gateReason ?? 'a server rule applies'}.`;
  return null;
}
