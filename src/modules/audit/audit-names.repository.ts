import { inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { appeals, members, staff } from '../../db/schema';
import type { AuditEntryView, AuditMemberRef } from '../../shared/audit-sentence';
import type { AuditEntry } from './audit.repository';

/**
 * The names an audit page's sentences use (docs/behaviour.md#audit-log), read from the live
 * tables at read time: the log itself keeps only Discord IDs and staff IDs, so a deleted
 * member's entries name them by ID, and nothing personal is kept in the append-only log.
 */

const isMemberId = (value: unknown): value is string => typeof value === 'string' && /^\d{15,21}$/.test(value);

/** The Discord IDs an entry names: its member target, a visitor or Discord actor, and both sides of an alt link. */
function memberIdsOf(entry: AuditEntry): string[] {
  const ids: unknown[] = [entry.details.mainDiscordId, entry.details.altDiscordId];
  if (entry.targetType === 'member') ids.push(entry.targetId);
  if (entry.actorType === 'visitor' || entry.actorType === 'discord') ids.push(entry.actorId);
  return ids.filter(isMemberId);
}

/** The staff account an entry targets, by id. */
function staffIdOf(entry: AuditEntry): number | null {
  return entry.targetType === 'staff' && entry.targetId && /^\d{1,15}$/.test(entry.targetId) ? Number(entry.targetId) : null;
}

/** A rejected appeal's id: its reason lives with the appeal (deleted with it), not in the log. */
function rejectedAppealIdOf(entry: AuditEntry): number | null {
  const id = entry.details.appealId;
  return entry.action === 'appeal.rejected' && typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}

/** One page of entries with the names of the members and staff they mention, in three reads at most. */
export async function withAuditNames(executor: Executor, entries: AuditEntry[]): Promise<AuditEntryView[]> {
  const memberIds = [...new Set(entries.flatMap(memberIdsOf))];
  const staffIds = [...new Set(entries.map(staffIdOf).filter((id): id is number => id !== null))];
  const appealIds = [...new Set(entries.map(rejectedAppealIdOf).filter((id): id is number => id !== null))];
  const [memberRows, staffRows, appealRows] = await Promise.all([
    memberIds.length
      ? executor
          .select({ discordId: members.discordId, username: members.username, avatarUrl: members.avatarUrl })
          .from(members)
          .where(inArray(members.discordId, memberIds))
      : [],
    staffIds.length ? executor.select({ id: staff.id, username: staff.username }).from(staff).where(inArray(staff.id, staffIds)) : [],
    appealIds.length
      ? executor.select({ id: appeals.id, reason: appeals.decisionReason }).from(appeals).where(inArray(appeals.id, appealIds))
      : [],
  ]);
  const memberById = new Map<string, AuditMemberRef>(memberRows.map((m) => [m.discordId, m]));
  const staffName = new Map(staffRows.map((s) => [Number(s.id), s.username]));
  const appealReason = new Map(appealRows.map((a) => [Number(a.id), a.reason]));
  return entries.map((entry) => {
    const named: Record<string, AuditMemberRef> = {};
    for (const id of memberIdsOf(entry)) {
      const found = memberById.get(id);
      if (found) named[id] = found;
    }
    const staffId = staffIdOf(entry);
    const appealId = rejectedAppealIdOf(entry);
    return {
      id: entry.id,
      at: entry.at.toISOString(),
      actorType: entry.actorType,
      actorId: entry.actorId,
      actorName: entry.actorName,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      details: entry.details,
      members: named,
      targetStaffName: staffId !== null ? (staffName.get(staffId) ?? null) : null,
      appealReason: appealId !== null ? (appealReason.get(appealId) ?? null) : null,
    };
  });
}
