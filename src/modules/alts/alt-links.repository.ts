import { and, asc, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { altLinks, members, type DETECTION_METHODS } from '../../db/schema';
import { COMPARED_COMPONENTS, confidenceRank, type AltConfidence, type AltEvidence, type ComparedComponent, type DetectedAltMethod } from './alt-scoring';

export type AltDetectionMethod = (typeof DETECTION_METHODS)[number];

export interface AltLink {
  id: number;
  mainMemberId: number;
  altMemberId: number;
  confidence: AltConfidence;
  detectionMethod: AltDetectionMethod;
  evidence: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** What saving a detected link did to the stored one. */
export type LinkChange = 'created' | 'strengthened' | 'refreshed' | 'kept';

export interface AltCounters {
  altsFound: number;
  isLinkedAsAlt: boolean;
}

/** The spec's fingerprintComponents: true (equal), false (different); an absent key = data unavailable. */
export type FingerprintComponentsView = Partial<Record<ComparedComponent, boolean>>;

/** One entry of a member's "Identified Alternate Accounts" (spec §3 alt entry), the other member of a link. */
export interface MemberAlt {
  memberId: number;
  discordId: string;
  username: string;
  avatarUrl: string | null;
  confidence: AltConfidence;
  detectionMethod: AltDetectionMethod;
  fingerprintComponents: FingerprintComponentsView;
  /** what the other member is in the link: the older 'main' or the newer 'alt' */
  otherIs: 'main' | 'alt';
  linkedAt: Date;
  updatedAt: Date;
}

type LinkRow = typeof altLinks.$inferSelect;

function toLink(row: LinkRow): AltLink {
  return {
    id: row.id,
    mainMemberId: row.mainMemberId,
    altMemberId: row.altMemberId,
    confidence: row.confidence,
    detectionMethod: row.detectionMethod,
    evidence: (row.evidence ?? {}) as Record<string, unknown>,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Reads the comparison back from stored evidence, keeping only booleans of known components. */
export function componentsFromEvidence(evidence: unknown): FingerprintComponentsView {
  const components = (evidence as { components?: unknown } | null)?.components;
  if (!components || typeof components !== 'object') return {};
  const view: FingerprintComponentsView = {};
  for (const component of COMPARED_COMPONENTS) {
    const value = (components as Record<string, unknown>)[component];
    if (typeof value === 'boolean') view[component] = value;
  }
  return view;
}

/** The link between two members in either direction, row-locked for the rest of the transaction. */
export async function findLinkBetween(ex: Executor, a: number, b: number): Promise<AltLink | null> {
  const [row] = await ex
    .select()
    .from(altLinks)
    .where(
      or(and(eq(altLinks.mainMemberId, a), eq(altLinks.altMemberId, b)), and(eq(altLinks.mainMemberId, b), eq(altLinks.altMemberId, a))),
    )
    .orderBy(asc(altLinks.id))
    .limit(1)
    .for('update');
  return row ? toLink(row) : null;
}

export interface DetectedLinkInput {
  mainMemberId: number;
  altMemberId: number;
  confidence: AltConfidence;
  detectionMethod: DetectedAltMethod;
  evidence: AltEvidence;
  now: Date;
}

/**
 * Stores a detection. A new pair is inserted; an existing link (either direction) is
 * strengthened when the new confidence is higher, its evidence refreshed when equal,
 * and kept as it is when the new finding is weaker or staff made it ('manual').
 */
export async function saveDetectedLink(ex: Executor, input: DetectedLinkInput): Promise<{ link: AltLink; change: LinkChange }> {
  if (input.mainMemberId === input.altMemberId) throw new Error('an account cannot be its own alt');
  let existing = await findLinkBetween(ex, input.mainMemberId, input.altMemberId);
  if (!existing) {
    const [inserted] = await ex
      .insert(altLinks)
      .values({
        mainMemberId: input.mainMemberId,
        altMemberId: input.altMemberId,
        confidence: input.confidence,
        detectionMethod: input.detectionMethod,
        evidence: input.evidence,
        createdAt: input.now,
        updatedAt: input.now,
      })
      .onConflictDoNothing({ target: [altLinks.mainMemberId, altLinks.altMemberId] })
      .returning();
    if (inserted) return { link: toLink(inserted), change: 'created' };
    // a concurrent transaction stored the pair first: treat it as existing
    existing = await findLinkBetween(ex, input.mainMemberId, input.altMemberId);
    if (!existing) throw new Error('alt link vanished while being saved');
  }
  if (existing.detectionMethod === 'manual') return { link: existing, change: 'kept' };
  const byRank = confidenceRank(input.confidence) - confidenceRank(existing.confidence);
  if (byRank < 0) return { link: existing, change: 'kept' };
  const [updated] = await ex
    .update(altLinks)
    .set({ confidence: input.confidence, detectionMethod: input.detectionMethod, evidence: input.evidence, updatedAt: input.now })
    .where(eq(altLinks.id, existing.id))
    .returning();
  return { link: toLink(updated!), change: byRank > 0 ? 'strengthened' : 'refreshed' };
}

/**
 * Recomputes `alts_found` (distinct other members linked either way) and
 * `is_linked_as_alt` (alt side of a certain link) from alt_links. The rows are locked
 * in id order first, so the recount runs on a fresh snapshot that includes links other
 * transactions committed meanwhile (READ COMMITTED), and never deadlocks with another
 * recount. `manual_alt_status` is staff's and never touched.
 */
export async function recomputeAltCounters(ex: Executor, memberIds: readonly number[]): Promise<Map<number, AltCounters>> {
  const ids = [...new Set(memberIds)].sort((a, b) => a - b);
  const counters = new Map<number, AltCounters>();
  if (ids.length === 0) return counters;
  await ex.select({ id: members.id }).from(members).where(inArray(members.id, ids)).orderBy(asc(members.id)).for('update');
  const rows = await ex
    .update(members)
    .set({
      altsFound: sql`(select count(distinct case when l.main_member_id = "members"."id" then l.alt_member_id else l.main_member_id end)::int
        from alt_links l where l.main_member_id = "members"."id" or l.alt_member_id = "members"."id")`,
      isLinkedAsAlt: sql`exists (select 1 from alt_links l where l.alt_member_id = "members"."id" and l.confidence = 'certain')`,
    })
    .where(inArray(members.id, ids))
    .returning({ id: members.id, altsFound: members.altsFound, isLinkedAsAlt: members.isLinkedAsAlt });
  for (const row of rows) counters.set(row.id, { altsFound: row.altsFound, isLinkedAsAlt: row.isLinkedAsAlt });
  return counters;
}

/** The other member of every link a member has: call before deleting a member, then recount them. */
export async function listLinkedMemberIds(ex: Executor, memberId: number): Promise<number[]> {
  const rows = await ex
    .select({ main: altLinks.mainMemberId, alt: altLinks.altMemberId })
    .from(altLinks)
    .where(or(eq(altLinks.mainMemberId, memberId), eq(altLinks.altMemberId, memberId)));
  return [...new Set(rows.map((r) => (r.main === memberId ? r.alt : r.main)))];
}

/** For the detail page: the other member of each link, certain first, then medium, then possible. */
export async function listAltsForMember(ex: Executor, memberId: number): Promise<MemberAlt[]> {
  const otherId = sql`case when ${altLinks.mainMemberId} = ${memberId} then ${altLinks.altMemberId} else ${altLinks.mainMemberId} end`;
  const rows = await ex
    .select({
      memberId: members.id,
      discordId: members.discordId,
      username: members.username,
      avatarUrl: members.avatarUrl,
      confidence: altLinks.confidence,
      detectionMethod: altLinks.detectionMethod,
      evidence: altLinks.evidence,
      mainMemberId: altLinks.mainMemberId,
      linkedAt: altLinks.createdAt,
      updatedAt: altLinks.updatedAt,
    })
    .from(altLinks)
    .innerJoin(members, sql`${members.id} = ${otherId}`)
    .where(or(eq(altLinks.mainMemberId, memberId), eq(altLinks.altMemberId, memberId)))
    .orderBy(sql`case ${altLinks.confidence} when 'certain' then 0 when 'medium' then 1 else 2 end`, desc(altLinks.updatedAt), asc(members.id));
  return rows.map((row) => ({
    memberId: row.memberId,
    discordId: row.discordId,
    username: row.username,
    avatarUrl: row.avatarUrl,
    confidence: row.confidence,
    detectionMethod: row.detectionMethod,
    fingerprintComponents: componentsFromEvidence(row.evidence),
    otherIs: row.mainMemberId === memberId ? 'alt' : 'main',
    linkedAt: row.linkedAt,
    updatedAt: row.updatedAt,
  }));
}

export interface AltLinkRepository {
  findBetween: typeof findLinkBetween;
  saveDetected: typeof saveDetectedLink;
  recomputeCounters: typeof recomputeAltCounters;
  listLinkedMemberIds: typeof listLinkedMemberIds;
  listAltsForMember: typeof listAltsForMember;
}

export const altLinkRepository: AltLinkRepository = {
  findBetween: findLinkBetween,
  saveDetected: saveDetectedLink,
  recomputeCounters: recomputeAltCounters,
  listLinkedMemberIds,
  listAltsForMember,
};
