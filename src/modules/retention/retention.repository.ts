import { sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { purgeDecidedAppealsBefore } from '../appeals';
import { DAY_MS } from '../../shared/durations';

async function count(tx: Executor, query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await selectRows<{ n: number | string }>(tx, query);
  return Number(row?.n ?? 0);
}

/** Both members of every link not updated since the cut-off: their counters change when it goes. */
export async function membersOfLinksBefore(tx: Executor, cutoff: Date): Promise<number[]> {
  const rows = await selectRows<{ id: number | string }>(
    tx,
    sql`select distinct unnest(array[main_member_id, alt_member_id]) as id from alt_links where updated_at < ${cutoff}`,
  );
  return rows.map((r) => Number(r.id));
}

/**
 * Deletes what members still kept have let age past the cut-off (attempts, links, notes,
 * decided appeals),
 * expired caches, tokens, sign-in callbacks' outcomes and login throttles, finished Discord actions, and shared-network
 * marks no member's network refers to any more. Run after the expired members went.
 */
export async function purgeAgedRows(tx: Executor, now: Date, cutoff: Date) {
  const attempts = await count(
    tx,
    sql`with d as (delete from verification_attempts where created_at < ${cutoff} returning 1) select count(*) as n from d`,
  );
  const links = await count(
    tx,
    sql`with d as (delete from alt_links where updated_at < ${cutoff} returning 1) select count(*) as n from d`,
  );
  const notes = await count(
    tx,
    sql`with d as (delete from admin_notes where created_at < ${cutoff} returning 1) select count(*) as n from d`,
  );
  // an open appeal stays as long as its member; a decided one ages like the rest
  const appeals = await purgeDecidedAppealsBefore(tx, cutoff);
  const vpnCache = await count(
    tx,
    sql`with d as (delete from vpn_cache where expires_at < ${now} or checked_at < ${cutoff} returning 1) select count(*) as n from d`,
  );
  const tokens = await count(
    tx,
    sql`with d as (delete from one_time_tokens where expires_at < ${now} returning 1) select count(*) as n from d`,
  );
  const signInCallbacks = await count(
    tx,
    sql`with d as (delete from sign_in_callbacks where expires_at < ${now} returning 1) select count(*) as n from d`,
  );
  const outbox = await count(
    tx,
    sql`with d as (delete from discord_outbox where status in ('done', 'failed') and updated_at < ${cutoff} returning 1) select count(*) as n from d`,
  );
  const throttles = await count(
    tx,
    sql`with d as (delete from login_throttle where window_started_at < ${new Date(now.getTime() - DAY_MS)} and (blocked_until is null or blocked_until < ${now}) returning 1) select count(*) as n from d`,
  );
  // after members went: a mark nobody's network refers to can no longer be named or undone
  const sharedNetworks = await count(
    tx,
    sql`with d as (delete from shared_networks s where s.created_at < ${cutoff} and not exists (select 1 from members m where m.network_hash = s.network_hash) returning 1) select count(*) as n from d`,
  );
  return { attempts, links, notes, appeals, vpnCache, tokens, signInCallbacks, outbox, throttles, sharedNetworks };
}
