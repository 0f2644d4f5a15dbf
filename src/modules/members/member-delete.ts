import { type OutboxPort, takeGrantForDeletion, type DiscardedOutbox } from '../outbox';
import { appendAudit, type AuditActor } from '../audit';
import { eraseMembers } from './member-erase.repository';

export interface DeletedMember {
  discordId: string;
  attempts: number;
  links: number;
  notes: number;
  /** members whose alt counters were recomputed because a link to this one went away */
  relinkedMembers: number;
  /** outbox rows dropped: unused sealed access tokens, finished actions and unsent log lines naming the account */
  outbox: DiscardedOutbox;
}

/** Where a deletion came from, for the audit row. */
export type DeletionSource = 'dashboard' | 'detail_page' | 'privacy_command' | (string & {});

/**
 * Deletes everything stored about one Discord account (eraseMembers, the same rule the
 * retention purge follows) and writes an audit row that keeps only the Discord ID. Run it
 * inside the caller's transaction (the dashboard, the detail page and the /privacy command
 * share it). Returns null when there is no such member.
 */
export async function deleteMemberEverywhere(
  tx: Parameters<typeof eraseMembers>[0],
  discordId: string,
  actor: AuditActor,
  options: {
    now: Date;
    via: DeletionSource;
    /** queues the clearing of the member's Linked Roles connection, when they gave a grant */ outbox?: OutboxPort;
  },
): Promise<DeletedMember | null> {
  // the grant goes with the record (foreign key): read first, handed to the outbox after the erase
  const clearConnection = options.outbox ? await takeGrantForDeletion(tx, discordId) : null;
  const erased = await eraseMembers(tx, { discordId });
  if (erased.discordIds.length === 0) return null;
  if (clearConnection && options.outbox) await clearConnection(options.outbox);
  const result: DeletedMember = {
    discordId,
    attempts: erased.attempts,
    links: erased.links,
    notes: erased.notes,
    relinkedMembers: erased.relinkedMembers,
    outbox: erased.outbox,
  };
  await appendAudit(
    tx,
    {
      actor,
      action: 'member.delete',
      targetType: 'member',
      targetId: discordId,
      details: {
        via: options.via,
        attempts: result.attempts,
        links: result.links,
        notes: result.notes,
        relinkedMembers: result.relinkedMembers,
      },
    },
    options.now,
  );
  return result;
}
