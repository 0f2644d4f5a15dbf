import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { appendAudit } from '../audit';
import { recomputeAltCounters } from '../alts';
import { eraseMembers, retentionExpiry } from '../members';
import { membersOfLinksBefore, purgeAgedRows } from './retention.repository';
import { upkeepEmbedded } from './embedded-upkeep';
import { DAY_MS } from '../../shared/durations';
import { takeGrantsOfMembersSeenBefore, type OutboxPort } from '../outbox';

export { retentionExpiry };

export interface PurgeCounts {
  members: number;
  attempts: number;
  links: number;
  notes: number;
  appeals: number;
  vpnCache: number;
  tokens: number;
  /** where sign-in callbacks ended, kept minutes for a repeat of the same callback */
  signInCallbacks: number;
  outbox: number;
  throttles: number;
  /** shared-network marks no member's network refers to any more */
  sharedNetworks: number;
}

/** The retention cut-off: data last touched before it is purged. */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/**
 * Deletes everything about visitors older than the retention period: members not seen
 * since the cut-off (eraseMembers: their attempts, links, notes and outbox rows go with them),
 * older attempts, links and notes of members still active, and expired caches and
 * tokens. The audit log keeps one row with the counts. A purged member who gave a Linked Roles
 * grant has their connection cleared the way a deletion clears it (the outbox, retried until Discord
 * answers). On PGlite, which has no
 * autovacuum and no background writer, it then runs their work (`upkeepEmbedded`: VACUUM,
 * ANALYZE in pieces, CHECKPOINT).
 */
export async function purgeExpired(deps: {
  database: Database;
  clock: Clock;
  retentionDays: number;
  /** queues the clearing of purged members' Linked Roles connections (those who gave a grant) */
  outbox?: OutboxPort;
}): Promise<PurgeCounts> {
  const now = deps.clock.now();
  const cutoff = retentionCutoff(now, deps.retentionDays);
  const { db } = deps.database;

  const counts = await db.transaction(async (tx) => {
    // members not seen since the cut-off go the way every member deletion goes; their grants go with
    // the records (foreign key): read first, handed to the outbox after the erase
    const clearConnections = deps.outbox ? await takeGrantsOfMembersSeenBefore(tx, cutoff) : null;
    const erased = await eraseMembers(tx, { lastSeenBefore: cutoff });
    if (clearConnections && deps.outbox) await clearConnections(deps.outbox);
    const touchedIds = await membersOfLinksBefore(tx, cutoff);
    const aged = await purgeAgedRows(tx, now, cutoff);
    await recomputeAltCounters(tx, touchedIds);

    const result: PurgeCounts = {
      members: erased.discordIds.length,
      attempts: aged.attempts + erased.attempts,
      links: aged.links + erased.links,
      notes: aged.notes + erased.notes,
      appeals: aged.appeals + erased.appeals,
      vpnCache: aged.vpnCache,
      tokens: aged.tokens,
      signInCallbacks: aged.signInCallbacks,
      outbox: aged.outbox + erased.outbox.tokens + erased.outbox.finished + erased.outbox.logLines,
      throttles: aged.throttles,
      sharedNetworks: aged.sharedNetworks,
    };
    if (Object.values(result).some((n) => n > 0)) {
      await appendAudit(
        tx,
        {
          actor: { type: 'system', id: 'retention', name: 'Retention purge' },
          action: 'retention.purge',
          details: { ...result, retentionDays: deps.retentionDays },
        },
        now,
      );
    }
    return result;
  });

  if (deps.database.kind === 'pglite') await upkeepEmbedded(deps.database);
  return counts;
}
