import { asc, desc, eq, or, sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { ALT_CONFIDENCES, altLinks, members } from '../../db/schema';
import type { AltLinkMethod, LinkChange } from './alt-link-policy';
import {
  COMPARED_COMPONENTS,
  confidenceRank,
  type AltConfidence,
  type AltEvidence,
  type ComparedComponent,
  type DetectedAltMethod,
} from './alt-scoring';
import { idArray } from '../../db/id-array';

export type AltDetectionMethod = AltLinkMethod;
export type { LinkChange };

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

export interface AltCounters {
  altsFound: number;
  isLinkedAsAlt: boolean;
}

/** The spec's fingerprintComponents: true (equal), false (different); an absent key = data unavailable. */
export type FingerprintComponentsView = Partial<Record<ComparedComponent, boolean>>;

/** One entry of a member's "Identified Alternate Accounts" (docs/behaviour.md#records-and-their-fields), the other member of a link. */
export interface MemberAlt {
  /** the link's id (staff dismiss or reopen it by this) */
  linkId: number;
  memberId: number;
  discordId: string;
  username: string;
  avatarUrl: string | null;
  confidence: AltConfidence;
  detectionMethod: AltDetectionMethod;
  fingerprintComponents: FingerprintComponentsView;
  /** how many other members share the matched fingerprint (absent when it did not match or was stored before counts were kept) */
  deviceProfileShared?: DeviceProfileSharedView;
  /** what the other member is in the link: the older 'main' or the newer 'alt' */
  otherIs: 'main' | 'alt';
  /** the link's stored evidence as saved (the detail page's standing sentence reads it) */
  evidence: Record<string, unknown>;
  linkedAt: Date;
  updatedAt: Date;
  /** staff said "Not the same person": the link counts nowhere; null while open */
  dismissal: { at: Date; byName: string | null; reason: string | null } | null;
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

export interface DeviceProfileSharedView {
  others: number;
  networks: number | null;
  atLeast: boolean;
}

/** Reads the fingerprint's anonymity count back from stored evidence (links saved before counts were kept have none). */
export function deviceProfileFromEvidence(evidence: unknown): DeviceProfileSharedView | undefined {
  const e = evidence as { fingerprintShared?: unknown; fingerprintNetworks?: unknown; sharedCountsCappedAt?: unknown } | null;
  if (!e || typeof e.fingerprintShared !== 'number') return undefined;
  const networks = typeof e.fingerprintNetworks === 'number' ? e.fingerprintNetworks : null;
  const cap = typeof e.sharedCountsCappedAt === 'number' ? e.sharedCountsCappedAt : Infinity;
  return { others: e.fingerprintShared, networks, atLeast: e.fingerprintShared >= cap };
}

export interface DetectedLinkInput {
  mainMemberId: number;
  altMemberId: number;
  confidence: AltConfidence;
  detectionMethod: DetectedAltMethod;
  evidence: AltEvidence;
}

export interface SavedLinks {
  /** each link as stored after saving, in the order given */
  saved: { link: AltLink; change: LinkChange }[];
  /** the recounted members, when a link changed (null when none did) */
  counters: Map<number, AltCounters> | null;
}

/** Confidence ranks as the database functions take them (the rule stays confidenceRank's). */
const CONFIDENCE_RANKS = JSON.stringify(Object.fromEntries(ALT_CONFIDENCES.map((confidence) => [confidence, confidenceRank(confidence)])));

interface SavedLinksJson {
  links: {
    id: number;
    mainMemberId: number;
    altMemberId: number;
    confidence: AltConfidence;
    detectionMethod: AltDetectionMethod;
    evidence: Record<string, unknown> | null;
    createdMs: number;
    updatedMs: number;
    change: LinkChange;
  }[];
  counters: Record<string, AltCounters> | null;
}

/** A link as `save_alt_links` reads it (jsonb_to_recordset: keys named after the columns). */
function toLinkJson(link: DetectedLinkInput) {
  return {
    main_member_id: link.mainMemberId,
    alt_member_id: link.altMemberId,
    confidence: link.confidence,
    detection_method: link.detectionMethod,
    evidence: link.evidence,
  };
}

/**
 * Stores one detection's links for `memberId` in ONE statement (`save_alt_links`,
 * src/db/functions), in the order given (sort them: concurrent detections then lock in the
 * same order). Each link is created, strengthened, refreshed or kept by the link upgrade
 * policy (linkChangeFor in alt-link-policy.ts). The members whose link changed are
 * recounted in the same call (see recomputeAltCounters).
 */
export async function saveDetectedLinks(
  ex: Executor,
  memberId: number,
  links: readonly DetectedLinkInput[],
  now: Date,
): Promise<SavedLinks> {
  if (links.some((link) => link.mainMemberId === link.altMemberId)) throw new Error('an account cannot be its own alt');
  if (links.length === 0) return { saved: [], counters: null };
  const [row] = await selectRows<{ result: SavedLinksJson }>(
    ex,
    sql`select save_alt_links(${memberId}::bigint, ${JSON.stringify(links.map(toLinkJson))}::jsonb, ${CONFIDENCE_RANKS}::jsonb, ${now.toISOString()}::timestamptz) as result`,
  );
  if (!row) throw new Error('save_alt_links returned no row');
  const { links: stored, counters } = row.result;
  return {
    saved: stored.map(({ change, createdMs, updatedMs, evidence, ...link }) => ({
      link: { ...link, evidence: evidence ?? {}, createdAt: new Date(createdMs), updatedAt: new Date(updatedMs) },
      change,
    })),
    counters: counters ? new Map(Object.entries(counters).map(([id, c]) => [Number(id), c])) : null,
  };
}

/**
 * Recomputes `alts_found` (distinct other members linked either way at medium or certain) and
 * `is_linked_as_alt` (alt side of a certain link) from alt_links, in ONE statement
 * (`recount_alt_counters`, src/db/functions): the rows are locked in id order first, so the
 * recount runs on a fresh snapshot that includes links other transactions committed
 * meanwhile (READ COMMITTED), and never deadlocks with another recount.
 * `manual_alt_status` is staff's and never touched.
 */
export async function recomputeAltCounters(ex: Executor, memberIds: readonly number[]): Promise<Map<number, AltCounters>> {
  const ids = [...new Set(memberIds)].sort((a, b) => a - b);
  const counters = new Map<number, AltCounters>();
  if (ids.length === 0) return counters;
  const rows = await selectRows<{ member_id: number | string; alts_found: number; is_linked_as_alt: boolean }>(
    ex,
    sql`select member_id, alts_found, is_linked_as_alt from recount_alt_counters(${idArray(ids)})`,
  );
  for (const row of rows) counters.set(Number(row.member_id), { altsFound: row.alts_found, isLinkedAsAlt: row.is_linked_as_alt });
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

/** The columns of a link as seen from one of its members: the link and the other member. */
const ALT_COLUMNS = {
  linkId: altLinks.id,
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
  dismissedAt: altLinks.dismissedAt,
  dismissedByName: altLinks.dismissedByName,
  dismissReason: altLinks.dismissReason,
};

/** A member's links in order: open links first, certain first, then medium, then possible; the newest first. */
const ALT_ORDER = [
  sql`${altLinks.dismissedAt} is not null`,
  sql`case ${altLinks.confidence} when 'certain' then 0 when 'medium' then 1 else 2 end`,
  desc(altLinks.updatedAt),
  asc(members.id),
];

type AltRow = {
  [K in keyof typeof ALT_COLUMNS]:
    (typeof ALT_COLUMNS)[K]['_']['data'] | ((typeof ALT_COLUMNS)[K]['_']['notNull'] extends true ? never : null);
};

/** A row of ALT_COLUMNS as the link of `memberId` to the other member. */
function toMemberAlt(row: AltRow, memberId: number): MemberAlt {
  return {
    linkId: row.linkId,
    memberId: row.memberId,
    discordId: row.discordId,
    username: row.username,
    avatarUrl: row.avatarUrl,
    confidence: row.confidence,
    detectionMethod: row.detectionMethod,
    fingerprintComponents: componentsFromEvidence(row.evidence),
    deviceProfileShared: deviceProfileFromEvidence(row.evidence),
    otherIs: row.mainMemberId === memberId ? 'alt' : 'main',
    evidence: (row.evidence ?? {}) as Record<string, unknown>,
    linkedAt: row.linkedAt,
    updatedAt: row.updatedAt,
    dismissal: row.dismissedAt ? { at: row.dismissedAt, byName: row.dismissedByName, reason: row.dismissReason } : null,
  };
}

/** For the detail page: the other member of each link, in ALT_ORDER. */
export async function listAltsForMember(ex: Executor, memberId: number): Promise<MemberAlt[]> {
  const otherId = sql`case when ${altLinks.mainMemberId} = ${memberId} then ${altLinks.altMemberId} else ${altLinks.mainMemberId} end`;
  const rows = await ex
    .select(ALT_COLUMNS)
    .from(altLinks)
    .innerJoin(members, sql`${members.id} = ${otherId}`)
    .where(or(eq(altLinks.mainMemberId, memberId), eq(altLinks.altMemberId, memberId)))
    .orderBy(...ALT_ORDER);
  return rows.map((row) => toMemberAlt(row, memberId));
}

/**
 * listAltsForMember for many members in one statement (a list of members, e.g. the appeals queue):
 * each member's links in ALT_ORDER; a member without links maps to an empty list. Each link is joined
 * to both of its members, and the row whose member is the other side of a listed member is kept.
 */
export async function listAltsForMembers(ex: Executor, memberIds: readonly number[]): Promise<Map<number, MemberAlt[]>> {
  const ids = [...new Set(memberIds)];
  const byMember = new Map<number, MemberAlt[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byMember;
  const listed = idArray(ids);
  const subjectId = sql<number>`case when ${members.id} = ${altLinks.mainMemberId} then ${altLinks.altMemberId} else ${altLinks.mainMemberId} end`;
  const rows = await ex
    .select({ ...ALT_COLUMNS, subjectId })
    .from(altLinks)
    .innerJoin(members, or(eq(members.id, altLinks.mainMemberId), eq(members.id, altLinks.altMemberId)))
    .where(sql`(${altLinks.mainMemberId} = any(${listed}) or ${altLinks.altMemberId} = any(${listed})) and ${subjectId} = any(${listed})`)
    .orderBy(subjectId, ...ALT_ORDER);
  for (const row of rows) byMember.get(Number(row.subjectId))?.push(toMemberAlt(row, Number(row.subjectId)));
  return byMember;
}

export interface AltLinkRepository {
  saveDetected: typeof saveDetectedLinks;
  recomputeCounters: typeof recomputeAltCounters;
  listLinkedMemberIds: typeof listLinkedMemberIds;
  listAltsForMember: typeof listAltsForMember;
}

export const altLinkRepository: AltLinkRepository = {
  saveDetected: saveDetectedLinks,
  recomputeCounters: recomputeAltCounters,
  listLinkedMemberIds,
  listAltsForMember,
};
