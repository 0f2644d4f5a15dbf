import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { preparedPerShape } from '../../db/prepared-per-executor';
import { members } from '../../db/schema';
import type { MemberFilter } from '../../shared/member-badges';
import { MEMBER_LIST_ORDER, memberMatchSql, searchOf, statementName, type MemberListQuery, type SearchKind } from './members.repository';

/**
 * A list's total: exact up to a cap; above it, the cap as a lower bound ("1,000+"), or for
 * the whole table the planner's row estimate ("~1,000,000").
 */
export interface MemberCount {
  total: number;
  /** false when the total is a lower bound or an estimate */
  exact: boolean;
  /** true when the total is a lower bound: at least this many match */
  capped: boolean;
}

/**
 * Counting stops after the cap, so one request reads at most cap + 1 index entries. Filters
 * count on their partial index (index-only); a search must test each username, and a common
 * one ("ninja": 5% of members) is tested on ~20 rows per match, hence its lower cap.
 */
export const COUNT_LIMITS = { cap: 1_000, searchCap: 100 };

export type CountLimits = typeof COUNT_LIMITS;

/** The cap for one query: never below the page size, so a full page is never more than its total. */
export function countCapFor(query: Pick<MemberListQuery, 'search' | 'limit'>, limits: CountLimits = COUNT_LIMITS): number {
  const needle = query.search?.trim();
  return needle ? Math.max(limits.searchCap, query.limit) : Math.max(limits.cap, query.limit);
}

/** The total a first page already tells: all of it, when no further page exists. */
export function totalFromFirstPage(
  query: Pick<MemberListQuery, 'cursor'>,
  page: { members: readonly unknown[]; nextCursor: string | null },
): MemberCount | null {
  if (query.cursor || page.nextCursor !== null) return null;
  return { total: page.members.length, exact: true, capped: false };
}

/** reltuples: what the last VACUUM / ANALYZE (autovacuum, or on PGlite the retention job) saw; -1 if never. */
const ESTIMATED_MEMBER_ROWS = sql`(select reltuples::bigint from pg_class where oid = 'members'::regclass)`;

/**
 * Counts in the list's own order, so the planner takes the list's index: the filter's partial
 * index, members_verified_at_id_idx, or the trigram indexes for a rare search. The whole
 * table's count reads the planner's estimate in the same statement (one round trip).
 */
function countQuery(executor: Executor, where: SQL | undefined, upTo: Placeholder) {
  const matches = executor
    .select({ one: sql`1` })
    .from(members)
    .where(where)
    .orderBy(...MEMBER_LIST_ORDER)
    .limit(upTo)
    .as('s');
  return executor
    .select({ n: sql<string | number>`count(*)`, estimate: where ? sql<null>`null` : sql<string | number>`${ESTIMATED_MEMBER_ROWS}` })
    .from(matches);
}

/** A count, built once per filter and kind of search with its pattern and cap as placeholders (prepared-per-executor.ts), as the list's pages are. */
const preparedCount = preparedPerShape((executor, shape: `${MemberFilter}:${SearchKind}`) => {
  const [filter, search] = shape.split(':') as [MemberFilter, SearchKind];
  return countQuery(executor, memberMatchSql(filter, search), sql.placeholder('upTo')).prepare(
    statementName(search, `gk_member_count_${filter}`),
  );
});

export async function countMembers(
  executor: Executor,
  query: Pick<MemberListQuery, 'search' | 'filter' | 'limit'>,
  limits: CountLimits = COUNT_LIMITS,
): Promise<MemberCount> {
  const cap = countCapFor(query, limits);
  const { kind, pattern } = searchOf(query.search);
  const [row] = await preparedCount(executor, `${query.filter}:${kind}`).execute({ pattern, upTo: cap + 1 });
  const counted = Number(row?.n ?? 0);
  if (counted <= cap) return { total: counted, exact: true, capped: false };
  // the estimate is there for the whole table only (null otherwise)
  const estimate = Number(row?.estimate ?? -1);
  if (estimate > cap) return { total: estimate, exact: false, capped: false };
  return { total: cap, exact: false, capped: true };
}
