import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { members } from '../../db/schema';
import type { Gate, LockdownState } from './admission-rules';
import type { MemberRow } from '../members';
import {
  alarmStandingQuery,
  raidWindowFrom,
  raidWindowQuery,
  type RaidWindowRow,
  type WindowAttempt,
  type RaidPolicy,
  type RaidWindow,
  lockdownFromValue,
  lockdownValueQuery,
} from '../raid';
import { idArray } from '../../db/id-array';

/**
 * Records the gate of the member's latest verification (null clears an earlier one). The
 * query is returned unrun: await it, or run it inside another statement (a data-modifying WITH).
 * A member whose gate is already this one is not written: most verifications have no gate and
 * had none, and an update that changes nothing still writes a new row version (a dead one to
 * vacuum, on a table PGlite vacuums only in the retention job).
 */
export function setMemberGate(executor: Executor, memberId: number, gate: Gate | null) {
  const action = gate?.action ?? null;
  const reason = gate?.reason ?? null;
  return executor
    .update(members)
    .set({ gateAction: action, gateReason: reason })
    .where(
      and(
        eq(members.id, memberId),
        sql`(${members.gateAction} is distinct from ${action}::text or ${members.gateReason} is distinct from ${reason}::text)`,
      ),
    );
}

/** The one row the admission step reads: the raid window's statement's columns and the lockdown switch's stored value. */
export type AdmissionStateRow = RaidWindowRow & { lockdown: Partial<LockdownState> | null; alarm_standing: boolean | null };

/**
 * What the admission step reads before it decides, as one row: the raid window ending at
 * `now` (counted by the database, `written` counted in: see raidWindowQuery), whether a raid
 * alarm stands (alarmStandingQuery) and the lockdown switch. A scalar select: it can run on its own or inside another statement (the
 * sign-in's, which writes `written`), which then answers it with its own row.
 */
export function admissionStateQuery(now: Date, policy: AdmissionReadPolicy, written?: WindowAttempt, previousDay?: number): SQL {
  const standing = alarmStandingQuery(now, policy.raidWindowMinutes);
  // the window is counted only when it could raise an alarm: none stands, and (for the day before it) enough
  // verifications; the day before not at all when the caller gives a recent count of it (previous-day-count.ts)
  const window = raidWindowQuery(now, policy.raidWindowMinutes, policy.raidYoungAccountDays, written, {
    minVerifications: policy.raidMinVerifications,
    unless: standing,
    previousDay,
  });
  return sql`select w.previous_day, w.verifications, w.young, w.shared, ${standing} as alarm_standing, ${lockdownValueQuery()} as lockdown
    from (${window}) as w`;
}

/** The settings the admission read counts the window by. */
export type AdmissionReadPolicy = Pick<RaidPolicy, 'raidWindowMinutes' | 'raidMinVerifications'> & { raidYoungAccountDays: number };

/** What the admission step knows from that row. */
export interface AdmissionState {
  /**
   * the window's numbers; null while a raid alarm raised less than one window ago stands (no new
   * one is raised meanwhile, and the window is not counted then: see admissionStateQuery)
   */
  window: RaidWindow | null;
  lockdown: LockdownState;
}

/** The raid window (null while an alarm stands) and the lockdown from that row. */
export function admissionStateFrom(row: AdmissionStateRow | undefined): AdmissionState {
  return { window: row?.alarm_standing === true ? null : raidWindowFrom(row), lockdown: lockdownFromValue(row?.lockdown) };
}

/** Reads the admission state's row in ONE statement (see `admissionStateQuery`; `admissionStateFrom` reads it). */
export async function readAdmissionRow(
  executor: Executor,
  now: Date,
  policy: AdmissionReadPolicy,
  previousDay?: number,
): Promise<AdmissionStateRow | undefined> {
  const [row] = await selectRows<AdmissionStateRow>(executor, admissionStateQuery(now, policy, undefined, previousDay));
  return row;
}

/** What a released member's record says about the role they can be given (the button's rule reads it). */
export interface ReleasedMember {
  id: number;
  discordId: string;
  status: MemberRow['status'];
  rulesConfirmed: boolean;
  manualAltStatus: MemberRow['manualAltStatus'];
  isLinkedAsAlt: boolean;
}

/**
 * The release's statement. `'review'` is SQL text, not a parameter: a write keeps one generic plan on the
 * embedded engine (pglite-prepared.ts), and only a condition written as the partial index's own
 * (`members_held_idx`, gate_action = 'review') lets that plan read the held members alone rather than
 * every member.
 */
export function releaseHeldQuery(executor: Executor, now: Date, discordIds?: string[]) {
  const held = sql`${members.gateAction} = 'review'`;
  return executor
    .update(members)
    .set({ gateAction: null, gateReason: null, updatedAt: now })
    .where(discordIds ? and(held, inArray(members.discordId, discordIds)) : held)
    .returning({
      id: members.id,
      discordId: members.discordId,
      status: members.status,
      rulesConfirmed: members.rulesConfirmed,
      manualAltStatus: members.manualAltStatus,
      isLinkedAsAlt: members.isLinkedAsAlt,
    });
}

/** Releases the members held for review (all of them, or the given ones), in id order. */
export async function releaseHeldMembers(executor: Executor, now: Date, discordIds?: string[]): Promise<ReleasedMember[]> {
  const rows = await releaseHeldQuery(executor, now, discordIds);
  return rows.sort((a, b) => a.id - b.id);
}

/** Records the access given to many members at once (a bulk release); one statement, one parameter. */
export async function setGuildAccessMany(
  executor: Executor,
  memberIds: number[],
  access: 'verified' | 'limited',
  now: Date,
): Promise<void> {
  if (memberIds.length === 0) return;
  await executor
    .update(members)
    .set({ guildAccess: access, lastSeenAt: now, updatedAt: now })
    .where(sql`${members.id} = any(${idArray(memberIds)})`);
}

export async function countHeldMembers(executor: Executor): Promise<number> {
  const [row] = await executor
    .select({ n: sql<number>`count(*)::int` })
    .from(members)
    .where(eq(members.gateAction, 'review'));
  return Number(row?.n ?? 0);
}

export async function listHeldMembers(
  executor: Executor,
  limit = 100,
): Promise<{ discordId: string; username: string; gateReason: string | null; verifiedAt: Date }[]> {
  return executor
    .select({ discordId: members.discordId, username: members.username, gateReason: members.gateReason, verifiedAt: members.verifiedAt })
    .from(members)
    .where(eq(members.gateAction, 'review'))
    .orderBy(members.id)
    .limit(limit);
}
