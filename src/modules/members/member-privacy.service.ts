import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { isSharedNetwork } from '../alts';
import type { OutboxPort } from '../outbox';
import { retentionExpiry } from './retention-expiry';
import { deleteMemberEverywhere, type DeletedMember } from './member-delete';
import { countMemberRecords, listStoredAttempts, type MemberRecordCounts, type StoredAttempt } from './member-privacy.repository';
import { findMemberByDiscordId, type Member } from './members.repository';

/** Everything stored about one Discord account, as its owner may see it (`/privacy show`). */
export interface StoredDataReport {
  member: Member;
  counts: MemberRecordCounts;
  /** the newest attempts (at most ATTEMPTS_LISTED); `counts.attempts` has the total */
  attempts: StoredAttempt[];
  networkMarkedShared: boolean;
  retentionDays: number;
  /** when the whole record goes if the member is not seen again */
  expiresAt: Date;
}

export type OwnDataDeletion = DeletedMember;

const ATTEMPTS_LISTED = 10;

/**
 * Self-service privacy (docs/behaviour.md#personal-data-and-retention): a member sees what is stored about them and when
 * it expires, and deletes all of it through the same code path as staff deletion.
 */
export function createMemberPrivacyService(deps: { database: Database; clock: Clock; outbox: OutboxPort; retentionDays: number }) {
  const { db } = deps.database;

  /** Null when nothing is stored about the account. */
  async function report(discordId: string): Promise<StoredDataReport | null> {
    const member = await findMemberByDiscordId(db, discordId);
    if (!member) return null;
    const [counts, attempts, networkMarkedShared] = await Promise.all([
      countMemberRecords(db, member),
      listStoredAttempts(db, member.id, ATTEMPTS_LISTED),
      isSharedNetwork(db, member.networkHash),
    ]);
    return {
      member,
      counts,
      attempts,
      networkMarkedShared,
      retentionDays: deps.retentionDays,
      expiresAt: retentionExpiry(member.lastSeenAt, deps.retentionDays),
    };
  }

  /**
   * Deletes every record about the account: the member with its attempts, links and notes
   * (deleteMemberEverywhere, whose audit row keeps only the Discord ID), and what the
   * outbox still holds about it. The log line names only the account. Null when nothing
   * was stored.
   */
  async function deleteOwnData(discordId: string): Promise<OwnDataDeletion | null> {
    const now = deps.clock.now();
    return db.transaction(async (tx) => {
      // the member acts on their own record; their username is not kept in the audit log
      const deleted = await deleteMemberEverywhere(
        tx,
        discordId,
        { type: 'discord', id: discordId, name: null },
        { now, via: 'privacy_command', outbox: deps.outbox },
      );
      if (!deleted) return null;
      await deps.outbox.enqueue(tx, {
        kind: 'log_message',
        event: 'privacy',
        discordId,
        text: `🗑️ <@${discordId}> deleted their verification records with /privacy delete`,
      });
      return deleted;
    });
  }

  return { report, deleteOwnData };
}

export type MemberPrivacyService = ReturnType<typeof createMemberPrivacyService>;
