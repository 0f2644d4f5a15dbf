import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { altLinks, members } from '../../db/schema';
import type { AltConfidence } from './alt-scoring';
import type { AltDetectionMethod } from './alt-links.repository';

/** A link as staff's dismiss and reopen read it: both members named, and whether it is dismissed. */
export interface LinkForReview {
  id: number;
  mainMemberId: number;
  altMemberId: number;
  mainDiscordId: string;
  altDiscordId: string;
  confidence: AltConfidence;
  detectionMethod: AltDetectionMethod;
  dismissedAt: Date | null;
}

/** Who dismissed a link: the staff account when there is one, and the name shown. */
export interface Dismisser {
  staffId: number | null;
  name: string;
}

function reviewSelection() {
  return {
    id: altLinks.id,
    mainMemberId: altLinks.mainMemberId,
    altMemberId: altLinks.altMemberId,
    mainDiscordId: sql<string>`(select m.discord_id from ${members} m where m.id = ${altLinks.mainMemberId})`,
    altDiscordId: sql<string>`(select m.discord_id from ${members} m where m.id = ${altLinks.altMemberId})`,
    confidence: altLinks.confidence,
    detectionMethod: altLinks.detectionMethod,
    dismissedAt: altLinks.dismissedAt,
  };
}

/**
 * One link of a member (either side), locked for the change: null when there is no such
 * link or it belongs to other members. Links are locked before members (as detection
 * does), so a dismissal and a detection never wait on each other in opposite orders.
 */
export async function findLinkOfMemberForUpdate(ex: Executor, memberId: number, linkId: number): Promise<LinkForReview | null> {
  const [row] = await ex
    .select(reviewSelection())
    .from(altLinks)
    .where(and(eq(altLinks.id, linkId), or(eq(altLinks.mainMemberId, memberId), eq(altLinks.altMemberId, memberId))))
    .for('update');
  return row ?? null;
}

/**
 * The open links that count for a member, locked in id order: those at medium or certain
 * confidence in either direction (they make up altsFound, and a certain one on the alt side
 * makes the member linked as alt). Possible links count nowhere and are left open.
 */
export async function listCountingLinksOfMemberForUpdate(ex: Executor, memberId: number): Promise<LinkForReview[]> {
  return ex
    .select(reviewSelection())
    .from(altLinks)
    .where(
      and(
        or(eq(altLinks.mainMemberId, memberId), eq(altLinks.altMemberId, memberId)),
        inArray(altLinks.confidence, ['medium', 'certain']),
        isNull(altLinks.dismissedAt),
      ),
    )
    .orderBy(asc(altLinks.id))
    .for('update');
}

/** Marks links dismissed ("Not the same person"): who, when and why are kept on the link. */
export async function markLinksDismissed(
  ex: Executor,
  linkIds: readonly number[],
  by: Dismisser,
  reason: string | null,
  now: Date,
): Promise<void> {
  if (linkIds.length === 0) return;
  await ex
    .update(altLinks)
    .set({ dismissedAt: now, dismissedByStaffId: by.staffId, dismissedByName: by.name, dismissReason: reason, updatedAt: now })
    .where(and(inArray(altLinks.id, [...linkIds]), isNull(altLinks.dismissedAt)));
}

/** Reopens a dismissed link: it counts again, and detection may strengthen or refresh it again. */
export async function markLinkReopened(ex: Executor, linkId: number, now: Date): Promise<void> {
  await ex
    .update(altLinks)
    .set({ dismissedAt: null, dismissedByStaffId: null, dismissedByName: null, dismissReason: null, updatedAt: now })
    .where(eq(altLinks.id, linkId));
}
