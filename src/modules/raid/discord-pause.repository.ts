import { sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { auditLogReason, type OutboxPort } from '../outbox';
import { syncVerificationLevel, type LockdownLevelChoice } from './lockdown-verification-level';
import {
  incidentActionsBody,
  NO_DISCORD_PAUSE,
  pausedWhat,
  pauseFrom,
  pauseStep,
  type DiscordPause,
  type PauseWish,
} from './discord-pause';

/** The pause last asked of Discord: one row of the `settings` table, beside the lockdown switch. */
const PAUSE_KEY = 'lockdown_discord_pause';

export async function readDiscordPause(executor: Executor): Promise<DiscordPause> {
  const [row] = await selectRows<{ value: Partial<DiscordPause> | null }>(
    executor,
    sql`select value from settings where key = ${PAUSE_KEY}`,
  );
  const value = row?.value;
  if (!value) return NO_DISCORD_PAUSE;
  return { invites: value.invites === true, dms: value.dms === true, until: value.until ?? null, requestedAt: value.requestedAt ?? null };
}

async function writeDiscordPause(executor: Executor, pause: DiscordPause, now: Date): Promise<void> {
  await executor.execute(
    sql`insert into settings (key, value, updated_at) values (${PAUSE_KEY}, ${JSON.stringify(pause)}::jsonb, ${now.toISOString()}::timestamptz)
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
  );
}

/**
 * Brings the pause in Discord in line with the lockdown, in the caller's transaction (the one that
 * switched the lockdown, or the renewal job's): asks for a pause, renews it or lifts it as `pauseStep`
 * says, storing what was asked and queueing the call. A call still queued from before is replaced
 * (only the newest state matters, and two calls must not race each other). The verification level,
 * when the owner chose to raise it, is brought in line in the same transaction. Returns what was done
 * to the pause; when only the level changed, 'pause' for its raise and 'lift' for its restore.
 */
export async function syncDiscordPause(
  tx: Executor,
  deps: { outbox: OutboxPort },
  input: { lockdownOn: boolean; wish: PauseWish & { lockdownVerificationLevel?: LockdownLevelChoice }; now: Date; why: string },
): Promise<'pause' | 'lift' | null> {
  // the verification level, when the owner chose to raise it, follows the same lockdown (lockdown-verification-level.ts)
  const level = await syncVerificationLevel(tx, deps, {
    lockdownOn: input.lockdownOn,
    choice: input.wish.lockdownVerificationLevel,
    now: input.now,
    why: input.why.replace(/, pause renewed$/, ''),
  });
  const paused = await syncPause(tx, deps, input);
  return paused ?? (level === null ? null : level === 'raise' ? 'pause' : 'lift');
}

async function syncPause(
  tx: Executor,
  deps: { outbox: OutboxPort },
  input: { lockdownOn: boolean; wish: PauseWish; now: Date; why: string },
): Promise<'pause' | 'lift' | null> {
  const before = await readDiscordPause(tx);
  const step = pauseStep({ lockdownOn: input.lockdownOn, wish: input.wish, pause: before, now: input.now });
  if (step === null) return null;
  const pause = step === 'pause' ? pauseFrom(input.now, input.wish) : { ...NO_DISCORD_PAUSE, requestedAt: input.now.toISOString() };
  await writeDiscordPause(tx, pause, input.now);
  await tx.execute(sql`delete from discord_outbox where kind = 'incident_actions' and status = 'pending'`);
  const body = incidentActionsBody(pause);
  const what = step === 'pause' ? `${pausedWhat(pause)} paused` : `${pausedWhat(before) || 'pause'} lifted`;
  await deps.outbox.enqueue(tx, {
    kind: 'incident_actions',
    invitesDisabledUntil: body.invites_disabled_until,
    dmsDisabledUntil: body.dms_disabled_until,
    reason: auditLogReason(`${input.why}: ${what}`),
  });
  return step;
}

/** The newest call for the pause and how it went, for the dashboard: queued, done or failed (with Discord's answer). */
export interface DiscordPauseStatus extends DiscordPause {
  call: { status: 'pending' | 'running' | 'done' | 'failed'; error: string | null; at: string } | null;
}

export async function discordPauseStatus(executor: Executor): Promise<DiscordPauseStatus> {
  const pause = await readDiscordPause(executor);
  const [row] = await selectRows<{
    status: 'pending' | 'running' | 'done' | 'failed';
    last_error: string | null;
    updated_at: Date | string;
  }>(executor, sql`select status, last_error, updated_at from discord_outbox where kind = 'incident_actions' order by id desc limit 1`);
  return { ...pause, call: row ? { status: row.status, error: row.last_error, at: new Date(row.updated_at).toISOString() } : null };
}
