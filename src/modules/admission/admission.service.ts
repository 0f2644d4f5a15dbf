import type { Logger } from '../../logger';
import { logLockdown } from '../../operator-events';
import type { SQL } from 'drizzle-orm';
import type { Clock } from '../../clock';
import type { Database, Executor } from '../../db/client';
import { retryOnConflict } from '../../db/transaction-retry';
import { appendAudit, type AuditActor } from '../audit';
import { auditLogReason, grantVerified, type DiscordAction, type OutboxPort } from '../outbox';
import {
  checkForRaid,
  raiseDiscordRaidAlarm,
  type RaidReason,
  recentRaidAlarms,
  type WindowAttempt,
  createPreviousDayCount,
  readLockdown,
  writeLockdown,
  discordPauseStatus,
  syncDiscordPause,
  levelOf,
  verificationLevelStatus,
  type VerificationLevelStatus,
} from '../raid';
import type { OwnerSettings } from '../settings';
import {
  combineGates,
  decideAgeGate,
  decideLockdownGate,
  gateMessage,
  LOCKDOWN_OFF,
  type Gate,
  type LockdownState,
} from './admission-rules';
import { findMemberRowByDiscordId } from '../members';
import {
  admissionStateFrom,
  admissionStateQuery,
  countHeldMembers,
  listHeldMembers,
  readAdmissionRow,
  releaseHeldMembers,
  setGuildAccessMany,
  setMemberGate,
  type AdmissionStateRow,
  type ReleasedMember,
} from './admission.repository';
import { decideButtonOutcome } from './button-outcome';

/** The admission step's answer: the gate (null when no rule applies) and, for a gate, the staff log line that says so. */
export interface AdmissionGate {
  gate: Gate | null;
  logLine: DiscordAction | null;
}

/** The admission read made by the caller's statement (`readQuery`, which counted in the attempt that statement wrote): its row. */
export interface AdmissionRead {
  settings: OwnerSettings;
  row: AdmissionStateRow | undefined;
  /** the statement counted the day before the window (rather than using a recent count: see `readQuery`) */
  countedPreviousDay: boolean;
}

/**
 * The admission read as the caller's statement makes it: `query` is the read, built for the attempt that
 * statement writes (counted in); `read` turns the row it gave back into the admission step's input.
 */
export interface AdmissionReadQuery {
  query: (written: WindowAttempt) => SQL;
  read: (row: unknown) => AdmissionRead;
}

/** The staff log line of a verification an admission rule gated. */
function gateLogLine(discordId: string, gate: Gate): DiscordAction {
  const what = gate.action === 'review' ? 'held for staff review' : 'given Limited Access';
  return { kind: 'log_message', event: 'staff_action', discordId, text: `⏸️ <@${discordId}> was ${what}: ${gate.reason}.` };
}

/** What a lockdown does, as the owner set it. */
export interface LockdownPlan {
  action: OwnerSettings['lockdownAction'];
  pauseInvites: boolean;
  pauseDms: boolean;
  /** the verification level a lockdown raises the server to (Discord's 0-4), null: left alone */
  raiseVerificationLevel: number | null;
}

/** Outbox rows per INSERT in a bulk release (each row takes a handful of parameters; the limit is 65535). */
const ROLE_CHANGES_PER_STATEMENT = 1000;

/**
 * What happens after a verification is recorded and before anyone gets roles: the raid
 * check, then the admission rules (lockdown, account age) that may leave the newcomer
 * with Limited Access or hold them for staff review. Also the lockdown switch and the
 * release of held members.
 */
export function createAdmissionService(deps: {
  database: Database;
  clock: Clock;
  settings: { snapshot(): OwnerSettings };
  outbox: OutboxPort;
  nudgeOutbox?: () => void;
  onRaidAlarm?: (reasons: RaidReason[], lockdownStarted: boolean) => void;
  /** the operator's log (a line when lockdown is switched) */
  logger?: Logger;
}) {
  // the raid window's day before, counted at most once a minute by this process (previous-day-count.ts)
  const previousDay = createPreviousDayCount();
  /** Keeps the day before as a statement counted it at `now` (null: the window was too small to count it). */
  const keepCount = (now: Date, row: AdmissionStateRow | undefined) => {
    if (row?.previous_day !== null && row?.previous_day !== undefined) previousDay.counted(now, Number(row.previous_day));
  };
  /**
   * Releases held members in the caller's transaction. A released member who has done
   * everything the 'Complete Verification!' button asks gets at once the role the button
   * would give (the button's own rule decides: Verified, or Limited Access), one outbox
   * item per member, queued with the release so a crash loses neither. A member who has
   * not confirmed the rules yet, or whose standing is certain alt, is only released: the
   * button decides for them as usual (a release never kicks or bans).
   */
  async function release(tx: Executor, actor: AuditActor, now: Date, discordIds?: string[]): Promise<string[]> {
    const released = await releaseHeldMembers(tx, now, discordIds);
    if (released.length === 0) return [];
    const granted = { verified: [] as ReleasedMember[], limited: [] as ReleasedMember[] };
    const roleChanges: DiscordAction[] = [];
    const releasedBy = `released from review by ${actor.name ? `staff (${actor.name})` : 'staff'}`;
    for (const member of released) {
      const outcome = decideButtonOutcome(member);
      if (outcome === 'verified') roleChanges.push(grantVerified(member.discordId, auditLogReason(`${releasedBy}, verified`)));
      else if (outcome === 'limited')
        roleChanges.push({
          kind: 'update_roles',
          discordId: member.discordId,
          add: ['limited'],
          remove: ['unverified'],
          reason: auditLogReason(`${releasedBy}, Limited Access`),
        });
      else continue;
      granted[outcome].push(member);
    }
    // a bulk release can hold thousands: the rows go in batches to stay under the statement's parameter limit
    for (let i = 0; i < roleChanges.length; i += ROLE_CHANGES_PER_STATEMENT)
      await deps.outbox.enqueue(tx, ...roleChanges.slice(i, i + ROLE_CHANGES_PER_STATEMENT));
    await setGuildAccessMany(
      tx,
      granted.verified.map((m) => m.id),
      'verified',
      now,
    );
    await setGuildAccessMany(
      tx,
      granted.limited.map((m) => m.id),
      'limited',
      now,
    );

    const waiting = released.length - granted.verified.length - granted.limited.length;
    const parts = [
      granted.verified.length > 0 ? `${granted.verified.length} got the Verified role` : null,
      granted.limited.length > 0 ? `${granted.limited.length} got Limited Access` : null,
      waiting > 0 ? `${waiting} complete verification with the button` : null,
    ].filter((p): p is string => p !== null);
    const logLine = deps.outbox.enqueueQuery(tx, {
      kind: 'log_message',
      event: 'staff_action',
      text: `🔓 ${actor.name ?? 'Staff'} released ${released.length} member${released.length === 1 ? '' : 's'} held for review: ${parts.join(', ')}.`,
    });
    await appendAudit(
      tx,
      {
        actor,
        action: 'admission.released',
        targetType: 'server',
        details: {
          count: released.length,
          discordIds: released.map((m) => m.discordId),
          verified: granted.verified.length,
          limited: granted.limited.length,
          waitingForButton: waiting,
        },
      },
      now,
      [logLine],
    );
    return released.map((m) => m.discordId);
  }

  /**
   * The admission step of a verification, inside its transaction once its member and attempt
   * are written: the raid check, then the rules. It reads in one statement (raid window and
   * lockdown), or takes that row from the caller's statement (`read`, see `readQuery`). It
   * writes only when the raid check raises an alarm; the member's gate is written by the caller
   * (`setMemberGate`, in the statement it chooses), and the log line queued by it.
   */
  async function gate(
    tx: Executor,
    input: { member: { id: number; discordId: string }; now: Date; read?: AdmissionRead },
  ): Promise<AdmissionGate> {
    const settings = input.read?.settings ?? deps.settings.snapshot();
    let row = input.read?.row;
    if (input.read) {
      if (input.read.countedPreviousDay) keepCount(input.now, row);
    } else {
      const reusable = previousDay.reusable(input.now);
      row = await readAdmissionRow(tx, input.now, settings, reusable);
      if (reusable === undefined) keepCount(input.now, row);
    }
    const state = admissionStateFrom(row);
    const raid = await checkForRaid(
      tx,
      { outbox: deps.outbox, onAlarm: deps.onRaidAlarm },
      { now: input.now, policy: settings, window: state.window },
    );
    // an alarm may have just switched the lockdown on, in this transaction
    const lockdown = raid.lockdownStarted ? await readLockdown(tx) : state.lockdown;
    const decided = combineGates(decideLockdownGate(lockdown, settings), decideAgeGate(input.member.discordId, input.now, settings));
    return { gate: decided, logLine: decided ? gateLogLine(input.member.discordId, decided) : null };
  }

  return {
    /** The admission rule that applied to a visitor's verification, with the words the success page shows; null when none did. */
    async visitorGate(
      discordId: string,
    ): Promise<{ action: NonNullable<Gate>['action']; reason: string | null; message: string | null } | null> {
      const member = await findMemberRowByDiscordId(deps.database.db, discordId);
      if (!member?.gateAction) return null;
      return { action: member.gateAction, reason: member.gateReason, message: gateMessage(member) };
    },

    /**
     * The admission step's read with the settings it was made for, for the caller to run
     * inside its own statement, built for the attempt that statement writes (counted in).
     */
    readQuery(now: Date): AdmissionReadQuery {
      const settings = deps.settings.snapshot();
      const reusable = previousDay.reusable(now);
      const countedPreviousDay = reusable === undefined;
      return {
        query: (written) => admissionStateQuery(now, settings, written, reusable),
        read: (row) => ({ settings, countedPreviousDay, row: row as AdmissionStateRow | undefined }),
      };
    },

    gate,

    /** The admission step with the gate written and its log line queued at once, each its own statement (see `gate`). */
    async admit(tx: Executor, input: { member: { id: number; discordId: string }; now: Date }): Promise<Gate | null> {
      const admitted = await gate(tx, input);
      await setMemberGate(tx, input.member.id, admitted.gate);
      if (admitted.logLine) await deps.outbox.enqueue(tx, admitted.logLine);
      return admitted.gate;
    },

    async status(): Promise<{
      lockdown: LockdownState;
      held: number;
      heldMembers: Awaited<ReturnType<typeof listHeldMembers>>;
      alarms: Awaited<ReturnType<typeof recentRaidAlarms>>;
      discordPause: Awaited<ReturnType<typeof discordPauseStatus>>;
      /** the server's verification level as the lockdown raised it (or put it back) */
      verificationLevel: VerificationLevelStatus;
      /** what a lockdown does, from the settings: for the dashboard's explanation and its confirmation */
      plan: LockdownPlan;
    }> {
      const { db } = deps.database;
      const [lockdown, held, heldMembers, alarms, discordPause] = [
        await readLockdown(db),
        await countHeldMembers(db),
        await listHeldMembers(db, 50),
        await recentRaidAlarms(db, 5),
        await discordPauseStatus(db),
      ];
      const verificationLevel = await verificationLevelStatus(db);
      const settings = deps.settings.snapshot();
      const plan = {
        action: settings.lockdownAction,
        pauseInvites: settings.lockdownPauseInvites,
        pauseDms: settings.lockdownPauseDms,
        raiseVerificationLevel: levelOf(settings.lockdownVerificationLevel),
      };
      return { lockdown, held, heldMembers, alarms, discordPause, verificationLevel, plan };
    },

    /**
     * Discord's raid detection flagged the server (the guild's `incidents_data.raid_detected_at`, read from
     * GUILD_CREATE and GUILD_UPDATE): Gatekeeper's own raid alarm, once per detection (raid.service.ts).
     */
    async discordRaidDetected(detectedAt: string): Promise<boolean> {
      const now = deps.clock.now();
      const raised = await retryOnConflict(() =>
        deps.database.db.transaction((tx) =>
          raiseDiscordRaidAlarm(
            tx,
            { outbox: deps.outbox, onAlarm: deps.onRaidAlarm },
            { now, detectedAt, policy: deps.settings.snapshot() },
          ),
        ),
      );
      if (raised) deps.nudgeOutbox?.();
      return raised;
    },

    /**
     * The renewal job: while the lockdown holds, the pause in Discord is asked for again before it runs
     * out (and follows a change of the owner's choice); a lockdown that ended without lifting it lifts it.
     */
    async renewDiscordPause(): Promise<'pause' | 'lift' | null> {
      const now = deps.clock.now();
      const step = await retryOnConflict(() =>
        deps.database.db.transaction(async (tx) => {
          const lockdown = await readLockdown(tx, true);
          return syncDiscordPause(tx, deps, {
            lockdownOn: lockdown.on,
            wish: deps.settings.snapshot(),
            now,
            why: lockdown.on ? 'lockdown holds, pause renewed' : 'lockdown ended',
          });
        }),
      );
      if (step) deps.nudgeOutbox?.();
      return step;
    },

    /**
     * Switches the lockdown on or off. Switching off can release every member held for
     * review at once (`release`) or keep them held for one-by-one decisions.
     */
    async setLockdown(
      actor: AuditActor,
      input: { on: boolean; reason?: string | null; release?: boolean },
    ): Promise<{ lockdown: LockdownState; changed: boolean; released: number }> {
      const now = deps.clock.now();
      const result = await retryOnConflict(() =>
        deps.database.db.transaction(async (tx) => {
          const before = await readLockdown(tx, true);
          const lockdown: LockdownState = input.on
            ? {
                on: true,
                reason: input.reason ?? null,
                since: before.on && before.since ? before.since : now.toISOString(),
                by: actor.name ?? null,
              }
            : LOCKDOWN_OFF;
          const changed = before.on !== lockdown.on || before.reason !== lockdown.reason;
          await writeLockdown(tx, lockdown, now);
          const who = actor.name ? `staff (${actor.name})` : 'staff';
          await syncDiscordPause(tx, deps, {
            lockdownOn: lockdown.on,
            wish: deps.settings.snapshot(),
            now,
            why: `lockdown switched ${lockdown.on ? 'on' : 'off'} by ${who}`,
          });
          const text = input.on
            ? `🔒 ${actor.name ?? 'Staff'} switched lockdown on${input.reason ? ` (${input.reason})` : ''}: new verifications are limited or held until it ends.`
            : `🔓 ${actor.name ?? 'Staff'} switched lockdown off${input.release ? '' : '; members held for review stay held'}.`;
          const logLine = deps.outbox.enqueueQuery(tx, { kind: 'log_message', event: 'staff_action', text });
          await appendAudit(
            tx,
            {
              actor,
              action: input.on ? 'lockdown.on' : 'lockdown.off',
              targetType: 'server',
              details: { reason: input.reason ?? null, wasOn: before.on, release: input.on ? undefined : input.release === true },
            },
            now,
            [logLine],
          );
          const released = !input.on && input.release ? await release(tx, actor, now) : [];
          return { lockdown, changed, released: released.length };
        }),
      );
      deps.nudgeOutbox?.();
      if (result.changed && deps.logger) logLockdown(deps.logger, { on: input.on, by: actor.name ?? actor.type });
      return result;
    },

    /** Releases held members (all, or the given Discord ids) and gives the ready ones their role (see `release`). */
    async releaseHeld(actor: AuditActor, discordIds?: string[]): Promise<string[]> {
      const now = deps.clock.now();
      const released = await retryOnConflict(() => deps.database.db.transaction((tx) => release(tx, actor, now, discordIds)));
      deps.nudgeOutbox?.();
      return released;
    },
  };
}

export type AdmissionService = ReturnType<typeof createAdmissionService>;
