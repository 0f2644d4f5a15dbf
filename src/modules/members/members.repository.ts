import { findMemberRowByDiscordId } from './member-row.repository';
import { desc, and, eq, inArray, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { memberFilterSql } from '../../db/member-filters';
import { preparedPerShape } from '../../db/prepared-per-executor';
import { literalLimit, textLiteral } from '../../db/sql-literal';
import { members } from '../../db/schema';
import type { BadgeSubject, ManualAltStatus, MemberFilter, MemberStatus } from '../../shared/member-badges';

export type GuildAccess = (typeof members.$inferSelect)['guildAccess'];

/** A member record as the rest of the code sees it: the badge fields and what else the row holds. */
export interface Member extends BadgeSubject {
  id: number;
  discordId: string;
  username: string;
  avatarUrl: string | null;
  source: 'web' | 'manual';
  vpnProvider: string | null;
  fingerprintHash: string | null;
  /** keyed hash of the member's latest /24 or /64 network, null for Limited Access records */
  networkHash: string | null;
  guildAccess: GuildAccess;
  rulesConfirmedAt: Date | null;
  verifiedAt: Date;
  lastSeenAt: Date;
  /** an admission rule at the last verification: 'limited' or 'review' (held), and why */
  gateAction?: 'limited' | 'review' | null;
  gateReason?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

type Row = typeof members.$inferSelect;

/** A members row as the rest of the code sees it. */
export function toMember(row: Row): Member {
  return {
    id: row.id,
    discordId: row.discordId,
    username: row.username,
    avatarUrl: row.avatarUrl,
    status: row.status,
    source: row.source,
    rulesConfirmed: row.rulesConfirmed,
    manualAltStatus: row.manualAltStatus,
    isLinkedAsAlt: row.isLinkedAsAlt,
    altsFound: row.altsFound,
    usedVpn: row.usedVpn,
    vpnAttempts: row.vpnAttempts,
    vpnProvider: row.vpnProvider,
    verificationCount: row.verificationCount,
    fingerprintHash: row.fingerprintHash,
    networkHash: row.networkHash,
    guildAccess: row.guildAccess,
    rulesConfirmedAt: row.rulesConfirmedAt,
    verifiedAt: row.verifiedAt,
    lastSeenAt: row.lastSeenAt,
    gateAction: row.gateAction,
    gateReason: row.gateReason,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The list filters in SQL (src/db/member-filters.ts: the same SQL as their partial indexes); 'all' filters nothing. */
const FILTER_SQL: Record<MemberFilter, SQL | undefined> = { all: undefined, ...memberFilterSql(members) };

/** '%', '_' and '\' in a search are literal characters, not wildcards. */
export function escapeLikePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** How a search matches: not at all (no search), the username, or (all digits) the username or the Discord ID. */
export type SearchKind = 'none' | 'name' | 'name-or-id';

/** A search's kind and its LIKE pattern, the placeholder `pattern`'s value. */
export function searchOf(search: string | undefined): { kind: SearchKind; pattern?: string } {
  const needle = search?.trim();
  if (!needle) return { kind: 'none' };
  // a Discord ID is all digits: other searches cannot match one, so skip that index
  return { kind: /^\d+$/.test(needle) ? 'name-or-id' : 'name', pattern: `%${escapeLikePattern(needle)}%` };
}

/**
 * Search (docs/behaviour.md#member-list-filters-and-search): case-insensitive substring of the username (trigram index), or
 * substring of the Discord ID. The pattern is the placeholder `pattern`, or a literal written into the text (sql-literal.ts).
 */
function searchSql(kind: SearchKind, pattern: SQLWrapper = sql.placeholder('pattern')): SQL | undefined {
  if (kind === 'none') return undefined;
  const byName = sql`${members.username} ilike ${pattern} escape '\\'`;
  if (kind === 'name') return byName;
  return sql`(${byName} or ${members.discordId} like ${pattern} escape '\\')`;
}

/**
 * A prepared statement's name for a shape. A search is sent unnamed (''), as Drizzle sends a
 * statement it was not asked to name: PostgreSQL then plans it for its word at every run, where
 * a named one could switch to one plan for any word, which walks the list's index through the
 * whole table for a rare word. On PGlite every read is planned for its values (pglite-prepared.ts).
 */
export function statementName(kind: SearchKind, name: string): string {
  return kind === 'none' ? name : '';
}

export interface MemberListQuery {
  search?: string;
  filter: MemberFilter;
  limit: number;
  cursor?: MemberCursor;
}

/** Keyset position: verified_at at full (microsecond) precision, then id. */
export interface MemberCursor {
  verifiedAt: string;
  id: number;
}

export function encodeMemberCursor(cursor: MemberCursor): string {
  return Buffer.from(JSON.stringify([cursor.verifiedAt, cursor.id]), 'utf8').toString('base64url');
}

export function decodeMemberCursor(text: string): MemberCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [verifiedAt, id] = value as unknown[];
    if (typeof verifiedAt !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(verifiedAt)) return null;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return null;
    return { verifiedAt, id };
  } catch {
    return null;
  }
}

const cursorTimestamp = sql<string>`to_char(${members.verifiedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The filter and search of a list query, without its cursor (the search's pattern the placeholder `pattern` unless given); undefined for the whole table. */
export function memberMatchSql(filter: MemberFilter, search: SearchKind = 'none', pattern?: SQLWrapper): SQL | undefined {
  return and(...[FILTER_SQL[filter], searchSql(search, pattern)].filter((c): c is SQL => c !== undefined));
}

/**
 * The list's order, newest first by (verified_at, id). NULLS LAST as in the index definitions
 * (members_verified_at_id_idx and the filters' partial indexes): plain DESC means NULLS FIRST,
 * which they cannot serve.
 */
function listOrderOf(verifiedAt: SQLWrapper, id: SQLWrapper): SQL[] {
  return [sql`${verifiedAt} desc nulls last`, sql`${id} desc nulls last`];
}
export const MEMBER_LIST_ORDER = listOrderOf(members.verifiedAt, members.id);

/**
 * A list page, built once per shape (its filter, its kind of search, and whether it starts after
 * a cursor) with its search pattern, limit and cursor as placeholders (prepared-per-executor.ts):
 * the dashboard asks for these pages over and over, and Drizzle would otherwise build and render
 * the statement at every request.
 */
const preparedListPage = preparedPerShape((executor, shape: `${MemberFilter}:${SearchKind}:${'first' | 'after'}`) => {
  const [filter, search, position] = shape.split(':') as [MemberFilter, SearchKind, 'first' | 'after'];
  const after = sql`(${members.verifiedAt}, ${members.id}) < (${sql.placeholder('cursorAt')}::timestamptz, ${sql.placeholder('cursorId')}::bigint)`;
  return executor
    .select({ row: members, cursorAt: cursorTimestamp })
    .from(members)
    .where(and(memberMatchSql(filter, search), position === 'after' ? after : undefined))
    .orderBy(...MEMBER_LIST_ORDER)
    .limit(sql.placeholder('limit'))
    .prepare(statementName(search, `gk_member_list_${filter}_${position}`));
});

/** Newest first: the index of the filter (or members_verified_at_id_idx) serves the order and the cursor. */
export async function listMembers(executor: Executor, query: MemberListQuery): Promise<{ members: Member[]; nextCursor: string | null }> {
  const { kind, pattern } = searchOf(query.search);
  const prepared = preparedListPage(executor, `${query.filter}:${kind}:${query.cursor ? 'after' : 'first'}`);
  const rows = await prepared.execute({ pattern, limit: query.limit + 1, cursorAt: query.cursor?.verifiedAt, cursorId: query.cursor?.id });
  return pageOf(rows, query.limit);
}

/** `limit` + 1 rows in list order → the page and, when the extra row exists, the next page's cursor. */
function pageOf(rows: { row: Row; cursorAt: string }[], limit: number): { members: Member[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? encodeMemberCursor({ verifiedAt: last.cursorAt, id: last.row.id }) : null;
  return { members: page.map((r) => toMember(r.row)), nextCursor };
}

/**
 * A search's first page and its matches counted up to `countUpTo` + 1, in one statement: the
 * search runs once (a trigram scan, or the walk of the list's index for a common word) for both.
 * The count must be small: the matches up to it are read from the table to be ordered. Only the
 * page's rows (and one more, for the cursor) are then read whole, by primary key: a rare word's
 * 101 counted matches cost 50 fewer row reads than joining them all (P3). Its word and limits are
 * written into its text (sql-literal.ts), so the plan made for a word is kept while it is searched
 * again (the list refreshed, several staff on one search during a raid).
 */
export function firstPageCountedQuery(executor: Executor, query: Omit<MemberListQuery, 'cursor'>, countUpTo: number) {
  const { kind, pattern } = searchOf(query.search);
  const hits = executor.$with('hits').as(
    executor
      .select({ id: members.id, verifiedAt: members.verifiedAt })
      .from(members)
      .where(memberMatchSql(query.filter, kind, pattern === undefined ? undefined : textLiteral(pattern)))
      .orderBy(...MEMBER_LIST_ORDER)
      .limit(literalLimit(countUpTo + 1)),
  );
  const pageIds = executor
    .select({ id: hits.id })
    .from(hits)
    .orderBy(...listOrderOf(hits.verifiedAt, hits.id))
    .limit(literalLimit(query.limit + 1));
  return executor
    .with(hits)
    .select({ row: members, cursorAt: cursorTimestamp, matched: sql<string | number>`(select count(*) from ${hits})` })
    .from(members)
    .where(inArray(members.id, pageIds))
    .orderBy(...MEMBER_LIST_ORDER)
    .limit(literalLimit(query.limit + 1));
}

export async function listFirstPageCounted(
  executor: Executor,
  query: Omit<MemberListQuery, 'cursor'>,
  countUpTo: number,
): Promise<{ members: Member[]; nextCursor: string | null; matched: number }> {
  const rows = await firstPageCountedQuery(executor, query, countUpTo);
  return { ...pageOf(rows, query.limit), matched: Number(rows[0]?.matched ?? 0) };
}

export async function findMemberByDiscordId(
  executor: Executor,
  discordId: string,
  options: { forUpdate?: boolean } = {},
): Promise<Member | null> {
  const row = await findMemberRowByDiscordId(executor, discordId, options);
  return row ? toMember(row) : null;
}

export interface ManualMemberInput {
  discordId: string;
  username: string;
  avatarUrl: string | null;
  status: MemberStatus;
  rulesConfirmed: boolean;
  manualAltStatus: ManualAltStatus | null;
}

/** Null when a record with that Discord ID already exists. */
export async function insertManualMember(executor: Executor, input: ManualMemberInput, now: Date): Promise<Member | null> {
  const [row] = await executor
    .insert(members)
    .values({
      ...input,
      source: 'manual',
      rulesConfirmedAt: input.rulesConfirmed ? now : null,
      verificationCount: 1,
      verifiedAt: now,
      lastSeenAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: members.discordId })
    .returning();
  return row ? toMember(row) : null;
}

export async function setManualAltStatus(
  executor: Executor,
  id: number,
  manualAltStatus: ManualAltStatus | null,
  now: Date,
): Promise<void> {
  await executor.update(members).set({ manualAltStatus, updatedAt: now }).where(eq(members.id, id));
}

/**
 * Manual verification: full access in Discord (and the Limited Access outcome lifted). Staff
 * vouch for the member, so it counts as the rules confirmed and the member reads Verified
 * everywhere (not Pending); the time of the member's own agreement stays as it was.
 */
export async function markManuallyVerified(executor: Executor, id: number, now: Date): Promise<void> {
  await executor
    .update(members)
    .set({ guildAccess: 'verified', status: 'verified', rulesConfirmed: true, updatedAt: now })
    .where(eq(members.id, id));
}

/**
 * Takes verification away: no Discord access, and the rules must be accepted again on
 * the website (otherwise the next button click would grant the roles straight back).
 */
export async function markUnverified(executor: Executor, id: number, now: Date): Promise<void> {
  await executor
    .update(members)
    .set({ guildAccess: 'pending', rulesConfirmed: false, rulesConfirmedAt: null, updatedAt: now })
    .where(eq(members.id, id));
}

/** Denied by staff (kicked or banned): no access, and the rules must be accepted on the website again. */
export async function markDenied(executor: Executor, id: number, now: Date): Promise<void> {
  await executor
    .update(members)
    .set({ guildAccess: 'denied', rulesConfirmed: false, rulesConfirmedAt: null, updatedAt: now })
    .where(eq(members.id, id));
}

/** How many member records sit on each of the given networks (members_network_hash_idx). */
/** For each network, the member on it who verified most recently (a network is named through a member). */
export async function latestMemberOnNetworks(
  executor: Executor,
  networkHashes: readonly string[],
): Promise<Map<string, { discordId: string; username: string }>> {
  const latest = new Map<string, { discordId: string; username: string }>();
  if (networkHashes.length === 0) return latest;
  const rows = await executor
    .selectDistinctOn([members.networkHash], { networkHash: members.networkHash, discordId: members.discordId, username: members.username })
    .from(members)
    .where(inArray(members.networkHash, [...networkHashes]))
    .orderBy(members.networkHash, desc(members.verifiedAt), desc(members.id));
  for (const row of rows) if (row.networkHash !== null) latest.set(row.networkHash, { discordId: row.discordId, username: row.username });
  return latest;
}

export async function countMembersOnNetworks(executor: Executor, networkHashes: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (networkHashes.length === 0) return counts;
  const rows = await executor
    .select({ networkHash: members.networkHash, n: sql<number>`count(*)::int` })
    .from(members)
    .where(inArray(members.networkHash, [...networkHashes]))
    .groupBy(members.networkHash);
  for (const row of rows) if (row.networkHash !== null) counts.set(row.networkHash, Number(row.n));
  return counts;
}
