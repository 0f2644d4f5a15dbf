import { sql } from 'drizzle-orm';
import type { Clock } from '../../clock';
import { selectRows, type Database } from '../../db/client';
import { appendAudit } from '../audit/audit.repository';
import { recomputeAltCounters } from '../alts/alt-links.repository';

export interface PurgeCounts {
  members: number;
  attempts: number;
  links: number;
  notes: number;
  vpnCache: number;
  tokens: number;
  outbox: number;
  throttles: number;
  /** shared-network marks no member's network refers to any more */
  sharedNetworks: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The retention cut-off: data last touched before it is purged. */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/** When data last touched at `at` falls behind the cut-off (the hourly purge deletes it within the hour after). */
export function retentionExpiry(at: Date, retentionDays: number): Date {
  return new Date(at.getTime() + retentionDays * DAY_MS);
}

/**
 * Deletes everything about visitors older than the retention period (DESIGN.md §6):
 * members not seen since the cut-off (their attempts, links and notes go with them),
 * older attempts, links and notes of members still active, and expired caches and
 * tokens. The audit log keeps one row with the counts. On PGlite, which has no
 * autovacuum and no background writer, it then runs VACUUM ANALYZE and a CHECKPOINT (else
 * the pages the hour dirtied are written out by whichever query next needs a buffer).
 */
export async function purgeExpired(deps: { database: Database; clock: Clock; retentionDays: number }): Promise<PurgeCounts> {
  const now = deps.clock.now();
  const cutoff = retentionCutoff(now, deps.retentionDays);
  const { db } = deps.database;

  const counts = await db.transaction(async (tx) => {
    const count = async (query: ReturnType<typeof sql>) => {
      const [row] = await selectRows<{ n: number | string }>(tx, query);
      return Number(row?.n ?? 0);
    };
    // members linked to what is purged need their alt counters recomputed
    const touched = await selectRows<{ id: number | string }>(tx, sql`
      select distinct unnest(array[main_member_id, alt_member_id]) as id from alt_links l
      where l.updated_at < ${cutoff}
         or l.main_member_id in (select id from members where last_seen_at < ${cutoff})
         or l.alt_member_id in (select id from members where last_seen_at < ${cutoff})`);
    const touchedIds = touched.map((r) => Number(r.id));

    const notesOfMembers = await count(sql`select count(*) as n from admin_notes where member_id in (select id from members where last_seen_at < ${cutoff})`);
    const attemptsOfMembers = await count(sql`select count(*) as n from verification_attempts where member_id in (select id from members where last_seen_at < ${cutoff})`);
    const linksOfMembers = await count(sql`select count(*) as n from alt_links where main_member_id in (select id from members where last_seen_at < ${cutoff}) or alt_member_id in (select id from members where last_seen_at < ${cutoff})`);
    const members = await count(sql`with d as (delete from members where last_seen_at < ${cutoff} returning 1) select count(*) as n from d`);
    const attempts = await count(sql`with d as (delete from verification_attempts where created_at < ${cutoff} returning 1) select count(*) as n from d`);
    const links = await count(sql`with d as (delete from alt_links where updated_at < ${cutoff} returning 1) select count(*) as n from d`);
    const notes = await count(sql`with d as (delete from admin_notes where created_at < ${cutoff} returning 1) select count(*) as n from d`);
    const vpnCache = await count(sql`with d as (delete from vpn_cache where expires_at < ${now} or checked_at < ${cutoff} returning 1) select count(*) as n from d`);
    const tokens = await count(sql`with d as (delete from one_time_tokens where expires_at < ${now} returning 1) select count(*) as n from d`);
    const outbox = await count(sql`with d as (delete from discord_outbox where status in ('done', 'failed') and updated_at < ${cutoff} returning 1) select count(*) as n from d`);
    const throttles = await count(sql`with d as (delete from login_throttle where window_started_at < ${new Date(now.getTime() - DAY_MS)} and (blocked_until is null or blocked_until < ${now}) returning 1) select count(*) as n from d`);

    // after members went: a mark nobody's network refers to can no longer be named or undone
    const sharedNetworks = await count(sql`with d as (delete from shared_networks s where s.created_at < ${cutoff} and not exists (select 1 from members m where m.network_hash = s.network_hash) returning 1) select count(*) as n from d`);
    await recomputeAltCounters(tx, touchedIds);

    const result: PurgeCounts = {
      members,
      attempts: attempts + attemptsOfMembers,
      links: links + linksOfMembers,
      notes: notes + notesOfMembers,
      vpnCache,
      tokens,
      outbox,
      throttles,
      sharedNetworks,
    };
    if (Object.values(result).some((n) => n > 0)) {
      await appendAudit(tx, { actor: { type: 'system', id: 'retention', name: 'Retention purge' }, action: 'retention.purge', details: { ...result, retentionDays: deps.retentionDays } }, now);
    }
    return result;
  });

  if (deps.database.kind === 'pglite') {
    await deps.database.exec('VACUUM ANALYZE');
    await deps.database.exec('CHECKPOINT');
  }
  return counts;
}
