import { sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { recomputeAltCounters } from '../alts';
import { discardMembersOutbox, type DiscardedOutbox } from '../outbox';
import { idArray } from '../../db/id-array';

/** Which members to erase: one Discord account, or everyone not seen since a date (retention). */
export type MembersToErase = { discordId: string } | { lastSeenBefore: Date };

export interface ErasedMembers {
  discordIds: string[];
  attempts: number;
  links: number;
  notes: number;
  /** appeals, open or decided (docs/behaviour.md#appeals) */
  appeals: number;
  /** members whose alt counters were recomputed because a link to an erased one went away */
  relinkedMembers: number;
  outbox: DiscardedOutbox;
}

function whereOf(which: MembersToErase): SQL {
  return 'discordId' in which ? sql`discord_id = ${which.discordId}` : sql`last_seen_at < ${which.lastSeenBefore}`;
}

/**
 * Deletes everything stored about some members, the one rule every deletion follows
 * (staff, the member's own /privacy delete, the retention purge): the members and, by
 * cascade, their attempts, alt links, notes and appeals; what the outbox still holds about them
 * (discardMembersOutbox); then the alt counters of the members they were linked to are
 * recomputed. Writes no audit row: each caller says in its own words what was deleted.
 * Run it inside the caller's transaction.
 */
export async function eraseMembers(tx: Executor, which: MembersToErase): Promise<ErasedMembers> {
  const rows = await selectRows<{ id: string | number; discord_id: string }>(
    tx,
    sql`select id, discord_id from members where ${whereOf(which)} order by id for update`,
  );
  const discordIds = rows.map((r) => r.discord_id);
  if (rows.length === 0)
    return { discordIds, attempts: 0, links: 0, notes: 0, appeals: 0, relinkedMembers: 0, outbox: { tokens: 0, finished: 0, logLines: 0 } };
  const ids = idArray(rows.map((r) => Number(r.id)));
  const [counts] = await selectRows<{
    attempts: string | number;
    links: string | number;
    notes: string | number;
    appeals: string | number;
  }>(
    tx,
    sql`select
      (select count(*) from verification_attempts where member_id = any(${ids})) as attempts,
      (select count(*) from alt_links where main_member_id = any(${ids}) or alt_member_id = any(${ids})) as links,
      (select count(*) from admin_notes where member_id = any(${ids})) as notes,
      (select count(*) from appeals where member_id = any(${ids})) as appeals`,
  );
  // the other end of every link, when it stays: its counters change once the link is gone
  const linked = await selectRows<{ id: string | number }>(
    tx,
    sql`select distinct case when main_member_id = any(${ids}) then alt_member_id else main_member_id end as id
      from alt_links where (main_member_id = any(${ids}) or alt_member_id = any(${ids}))
        and not (main_member_id = any(${ids}) and alt_member_id = any(${ids}))`,
  );
  const linkedIds = linked.map((r) => Number(r.id));
  await tx.execute(sql`delete from members where id = any(${ids})`);
  const outbox = await discardMembersOutbox(tx, discordIds);
  await recomputeAltCounters(tx, linkedIds);
  return {
    discordIds,
    attempts: Number(counts?.attempts ?? 0),
    links: Number(counts?.links ?? 0),
    notes: Number(counts?.notes ?? 0),
    appeals: Number(counts?.appeals ?? 0),
    relinkedMembers: linkedIds.length,
    outbox,
  };
}
