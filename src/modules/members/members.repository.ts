import { desc, and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { members } from '../../db/schema';
import type { ManualAltStatus, MemberFilter, MemberStatus } from '../../shared/member-badges';

export type GuildAccess = (typeof members.$inferSelect)['guildAccess'];

/** A member record as the rest of the code sees it. */
export interface Member {
  id: number;
  discordId: string;
  username: string;
  avatarUrl: string | null;
  status: MemberStatus;
  source: 'web' | 'manual';
  rulesConfirmed: boolean;
  manualAltStatus: ManualAltStatus | null;
  isLinkedAsAlt: boolean;
  altsFound: number;
  usedVpn: boolean;
  vpnAttempts: number;
  vpnProvider: string | null;
  verificationCount: number;
  fingerprintHash: string | null;
  /** keyed hash of the member's latest /24 or /64 network, null for Limited Access records */
  networkHash: string | null;
  guildAccess: GuildAccess;
  rulesConfirmedAt: Date | null;
  verifiedAt: Date;
  lastSeenAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

type Row = typeof members.$inferSelect;

function toMember(row: Row): Member {
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
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Spec §4 filters in SQL; member-list.int.test.ts checks them against MEMBER_FILTER_PREDICATES. */
const FILTER_SQL: Record<MemberFilter, SQL | undefined> = {
  all: undefined,
  certain_alts: sql`(${members.manualAltStatus} = 'certain_alt' or ${members.isLinkedAsAlt})`,
  verified: sql`(${members.rulesConfirmed} and ${members.status} = 'verified' and not ${members.isLinkedAsAlt} and ${members.manualAltStatus} is distinct from 'certain_alt')`,
  unverified: sql`(not ${members.rulesConfirmed} or ${members.status} <> 'verified')`,
};

/** '%', '_' and '\' in a search are literal characters, not wildcards. */
export function escapeLikePattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Spec §4 search: case-insensitive substring of the username (trigram index), or substring of the Discord ID. */
function searchSql(search: string | undefined): SQL | undefined {
  const needle = search?.trim();
  if (!needle) return undefined;
  const pattern = `%${escapeLikePattern(needle)}%`;
  const byName = sql`${members.username} ilike ${pattern} escape '\\'`;
  // a Discord ID is all digits: other searches cannot match one, so skip that index
  if (!/^\d+$/.test(needle)) return byName;
  return sql`(${byName} or ${members.discordId} like ${pattern} escape '\\')`;
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

/** Newest first by (verified_at, id): the members_verified_at_id_idx index serves the order and the cursor. */
export async function listMembers(executor: Executor, query: MemberListQuery): Promise<{ members: Member[]; nextCursor: string | null }> {
  const conditions = [FILTER_SQL[query.filter], searchSql(query.search)];
  if (query.cursor) {
    conditions.push(sql`(${members.verifiedAt}, ${members.id}) < (${query.cursor.verifiedAt}::timestamptz, ${query.cursor.id}::bigint)`);
  }
  const rows = await executor
    .select({ row: members, cursorAt: cursorTimestamp })
    .from(members)
    .where(and(...conditions.filter((c): c is SQL => c !== undefined)))
    // NULLS LAST as in the index definition: plain DESC means NULLS FIRST, which the index cannot serve
    .orderBy(sql`${members.verifiedAt} desc nulls last`, sql`${members.id} desc nulls last`)
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor = rows.length > query.limit && last ? encodeMemberCursor({ verifiedAt: last.cursorAt, id: last.row.id }) : null;
  return { members: page.map((r) => toMember(r.row)), nextCursor };
}

export interface MemberCount {
  total: number;
  /** false when the total is the planner's estimate or capped */
  exact: boolean;
}

/** Exact below these sizes; above, an estimate (whole table) or the cap (filtered). */
export const COUNT_LIMITS = { estimateAbove: 100_000, cap: 100_000 };

export async function countMembers(executor: Executor, query: Pick<MemberListQuery, 'search' | 'filter'>, limits = COUNT_LIMITS): Promise<MemberCount> {
  const where = and(...[FILTER_SQL[query.filter], searchSql(query.search)].filter((c): c is SQL => c !== undefined));
  if (!where) {
    const [estimate] = await selectRows<{ n: string | number }>(executor, sql`select reltuples::bigint as n from pg_class where oid = 'members'::regclass`);
    const estimated = Number(estimate?.n ?? -1);
    if (estimated >= limits.estimateAbove) return { total: estimated, exact: false };
  }
  const [row] = await selectRows<{ n: string | number }>(
    executor,
    sql`select count(*) as n from (select 1 from ${members} ${where ? sql`where ${where}` : sql``} limit ${limits.cap + 1}) s`,
  );
  const counted = Number(row?.n ?? 0);
  return counted > limits.cap ? { total: limits.cap, exact: false } : { total: counted, exact: true };
}

export async function findMemberByDiscordId(executor: Executor, discordId: string, options: { forUpdate?: boolean } = {}): Promise<Member | null> {
  const query = executor.select().from(members).where(eq(members.discordId, discordId));
  const [row] = options.forUpdate ? await query.for('update') : await query;
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

export async function setManualAltStatus(executor: Executor, id: number, manualAltStatus: ManualAltStatus | null, now: Date): Promise<void> {
  await executor.update(members).set({ manualAltStatus, updatedAt: now }).where(eq(members.id, id));
}

/** Manual verification: full access in Discord (and the Limited Access outcome lifted). */
export async function markManuallyVerified(executor: Executor, id: number, now: Date): Promise<void> {
  await executor.update(members).set({ guildAccess: 'verified', status: 'verified', updatedAt: now }).where(eq(members.id, id));
}

/**
 * Takes verification away: no Discord access, and the rules must be accepted again on
 * the website (otherwise the next button click would grant the roles straight back).
 */
export async function markUnverified(executor: Executor, id: number, now: Date): Promise<void> {
  await executor.update(members).set({ guildAccess: 'pending', rulesConfirmed: false, rulesConfirmedAt: null, updatedAt: now }).where(eq(members.id, id));
}

/** How many member records sit on each of the given networks (members_network_hash_idx). */
/** For each network, the member on it who verified most recently (a network is named through a member). */
export async function latestMemberOnNetworks(executor: Executor, networkHashes: readonly string[]): Promise<Map<string, { discordId: string; username: string }>> {
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
