import { sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { appendAudit, type AuditActor } from '../audit/audit.repository';
import { listLinkedMemberIds, recomputeAltCounters } from '../alts';
import { discardMemberOutbox } from '../outbox/outbox.repository';

export interface DeletedMember {
  discordId: string;
  attempts: number;
  links: number;
  notes: number;
  /** members whose alt counters were recomputed because a link to this one went away */
  relinkedMembers: number;
  /** outbox rows dropped: unused sealed access tokens, and finished actions naming the account */
  outbox: { tokens: number; finished: number };
}

/** Where a deletion came from, for the audit row. */
export type DeletionSource = 'dashboard' | 'detail_page' | 'privacy_command' | (string & {});

/**
 * Deletes everything stored about one Discord account: the member and, by cascade, its
 * attempts, alt links and notes; what the outbox still holds about it (discardMemberOutbox);
 * then recomputes altsFound / isLinkedAsAlt of the members it was linked to, and writes an
 * audit row that keeps only the Discord ID. Run it inside
 * the caller's transaction (the dashboard, the detail page and the /privacy command share
 * it). Returns null when there is no such member.
 */
export async function deleteMemberEverywhere(
  tx: Executor,
  discordId: string,
  actor: AuditActor,
  options: { now: Date; via: DeletionSource },
): Promise<DeletedMember | null> {
  const [member] = await selectRows<{ id: string | number }>(tx, sql`select id from members where discord_id = ${discordId} for update`);
  if (!member) return null;
  const id = Number(member.id);
  const [counts] = await selectRows<{ attempts: string | number; links: string | number; notes: string | number }>(
    tx,
    sql`select
      (select count(*) from verification_attempts where member_id = ${id}) as attempts,
      (select count(*) from alt_links where main_member_id = ${id} or alt_member_id = ${id}) as links,
      (select count(*) from admin_notes where member_id = ${id}) as notes`,
  );
  const linkedIds = await listLinkedMemberIds(tx, id);
  await tx.execute(sql`delete from members where id = ${id}`);
  const outbox = await discardMemberOutbox(tx, discordId);
  await recomputeAltCounters(tx, linkedIds);

  const result: DeletedMember = {
    discordId,
    attempts: Number(counts?.attempts ?? 0),
    links: Number(counts?.links ?? 0),
    notes: Number(counts?.notes ?? 0),
    relinkedMembers: linkedIds.length,
    outbox,
  };
  await appendAudit(
    tx,
    {
      actor,
      action: 'member.delete',
      targetType: 'member',
      targetId: discordId,
      details: { via: options.via, attempts: result.attempts, links: result.links, notes: result.notes, relinkedMembers: result.relinkedMembers },
    },
    options.now,
  );
  return result;
}
