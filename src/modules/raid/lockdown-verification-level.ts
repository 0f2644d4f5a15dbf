import { GuildVerificationLevel } from 'discord-api-types/v10';
import { sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { auditLogReason, type OutboxPort } from '../outbox';
import type { OwnerSettings } from '../settings';
import { levelName } from '../../shared/verification-levels';

/**
 * The lockdown's optional third lever: Discord's verification level (Server Settings → Safety Setup)
 * raised while the lockdown holds, so that new accounts, unverified emails and (at the highest level)
 * phones without a number wait at Discord's own door; the previous level is put back after it.
 * Off by default (Settings → Raid alarm). Needs Manage Server (Modify Guild).
 */

/** The owner's choice: off, or the level to raise to. */
export type LockdownLevelChoice = OwnerSettings['lockdownVerificationLevel'];

/** The owner's choices as Discord's verification levels. */
const LEVELS: Record<Exclude<LockdownLevelChoice, 'off'>, GuildVerificationLevel> = {
  medium: GuildVerificationLevel.Medium,
  high: GuildVerificationLevel.High,
  very_high: GuildVerificationLevel.VeryHigh,
};

export function levelOf(choice: LockdownLevelChoice | undefined): number | null {
  return !choice || choice === 'off' ? null : LEVELS[choice];
}

/**
 * What Gatekeeper asked and what it did (one row of `settings`, so a restart during a lockdown still
 * puts the level back): `want` the last step queued; `raisedTo` and `previous` written by the outbox
 * when it raised the level (before the call, so a crash after it loses nothing), cleared when restored.
 */
export interface VerificationLevelState {
  want: 'raise' | 'restore' | null;
  /** the level the raise asks for */
  target: number | null;
  /** the level Gatekeeper set, null when it set none (or the server was already at least that strict) */
  raisedTo: number | null;
  /** the level before the raise, to put back */
  previous: number | null;
  /** how the last restore went: 'restored', or 'changed_by_staff' (left as staff set it) */
  restore: 'restored' | 'changed_by_staff' | null;
}

export const NO_LEVEL_CHANGE: VerificationLevelState = { want: null, target: null, raisedTo: null, previous: null, restore: null };

const STATE_KEY = 'lockdown_verification_level';

const levelOrNull = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= GuildVerificationLevel.None && value <= GuildVerificationLevel.VeryHigh
    ? value
    : null;

export async function readLevelState(executor: Executor): Promise<VerificationLevelState> {
  const [row] = await selectRows<{ value: Partial<VerificationLevelState> | null }>(
    executor,
    sql`select value from settings where key = ${STATE_KEY}`,
  );
  const value = row?.value;
  if (!value) return NO_LEVEL_CHANGE;
  return {
    want: value.want === 'raise' || value.want === 'restore' ? value.want : null,
    target: levelOrNull(value.target),
    raisedTo: levelOrNull(value.raisedTo),
    previous: levelOrNull(value.previous),
    restore: value.restore === 'restored' || value.restore === 'changed_by_staff' ? value.restore : null,
  };
}

export async function writeLevelState(executor: Executor, state: VerificationLevelState, now: Date): Promise<void> {
  await executor.execute(
    sql`insert into settings (key, value, updated_at) values (${STATE_KEY}, ${JSON.stringify(state)}::jsonb, ${now.toISOString()}::timestamptz)
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
  );
}

/** What the level needs now: raise (to `target`) while the lockdown holds and the owner wants it, restore once it ended. */
export function levelStep(input: {
  lockdownOn: boolean;
  target: number | null;
  state: VerificationLevelState;
}): 'raise' | 'restore' | null {
  const { lockdownOn, target, state } = input;
  if (lockdownOn && target !== null) return state.want === 'raise' && state.target === target ? null : 'raise';
  return state.want === 'raise' ? 'restore' : null;
}

/**
 * Brings the verification level in line with the lockdown, in the caller's transaction (the one that
 * switched the lockdown, or the renewal job's): queues a raise or a restore as `levelStep` says. A call
 * still queued from before is replaced (only the newest step matters).
 */
export async function syncVerificationLevel(
  tx: Executor,
  deps: { outbox: OutboxPort },
  input: { lockdownOn: boolean; choice: LockdownLevelChoice | undefined; now: Date; why: string },
): Promise<'raise' | 'restore' | null> {
  const state = await readLevelState(tx);
  const target = levelOf(input.choice);
  const step = levelStep({ lockdownOn: input.lockdownOn, target, state });
  if (step === null) return null;
  await writeLevelState(tx, { ...state, want: step, target: step === 'raise' ? target : state.target }, input.now);
  await tx.execute(sql`delete from discord_outbox where kind = 'verification_level' and status = 'pending'`);
  const what = step === 'raise' ? `verification level raised to ${levelName(target)}` : 'verification level put back';
  await deps.outbox.enqueue(tx, {
    kind: 'verification_level',
    raiseTo: step === 'raise' ? target : null,
    reason: auditLogReason(`${input.why}: ${what}`),
  });
  return step;
}

/** The newest call and the level's state, for the dashboard's banner. */
export interface VerificationLevelStatus extends VerificationLevelState {
  call: { status: 'pending' | 'running' | 'done' | 'failed'; error: string | null } | null;
}

export async function verificationLevelStatus(executor: Executor): Promise<VerificationLevelStatus> {
  const state = await readLevelState(executor);
  const [row] = await selectRows<{ status: 'pending' | 'running' | 'done' | 'failed'; last_error: string | null }>(
    executor,
    sql`select status, last_error from discord_outbox where kind = 'verification_level' order by id desc limit 1`,
  );
  return { ...state, call: row ? { status: row.status, error: row.last_error } : null };
}
