import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { MemberFilter } from '../shared/member-badges';

/** The member columns the list filters read (the table's columns, or an index definition's). */
export interface MemberFilterColumns {
  status: SQLWrapper;
  rulesConfirmed: SQLWrapper;
  manualAltStatus: SQLWrapper;
  isLinkedAsAlt: SQLWrapper;
}

export type NarrowMemberFilter = Exclude<MemberFilter, 'all'>;

/**
 * The dashboard's list filters in SQL: the one SQL statement of them, used by the list
 * query (members.repository.ts) and by the partial indexes that serve the narrow ones
 * (schema.ts), so the planner can always prove an index matches its filter. The
 * TypeScript predicates the dashboard uses (MEMBER_FILTER_PREDICATES) are checked against
 * these on every combination of the columns (member-list.int.test.ts), and the indexes the
 * database holds against these (member-filters.agreement.int.test.ts).
 */
/**
 * A detected alt link that still counts, in SQL: linked, and staff have set no alt status of
 * their own. The SQL form of linkCounts (src/shared/member-badges.ts); the two are compared
 * on every combination of the columns in member-list.int.test.ts.
 */
export function linkCountsSql(c: Pick<MemberFilterColumns, 'manualAltStatus' | 'isLinkedAsAlt'>): SQL {
  return sql`(${c.isLinkedAsAlt} and ${c.manualAltStatus} is null)`;
}

export function memberFilterSql(c: MemberFilterColumns): Record<NarrowMemberFilter, SQL> {
  // Certain alt (memberStanding): a manual 'certain_alt', or a detected link staff have not
  // overridden with a manual status of their own. 'verified' negates each half in its
  // null-safe form (manual_alt_status is null for most members, and "not null" is null).
  const countingLink = linkCountsSql(c);
  return {
    certain_alts: sql`(${c.manualAltStatus} = 'certain_alt' or ${countingLink})`,
    verified: sql`(${c.rulesConfirmed} and ${c.status} = 'verified' and ${c.manualAltStatus} is distinct from 'certain_alt' and not ${countingLink})`,
    unverified: sql`(not ${c.rulesConfirmed} or ${c.status} <> 'verified')`,
  };
}

/**
 * The partial index serving each narrow filter's page, cursor and capped count, newest
 * first. 'verified' (most members) has none: it walks members_verified_at_id_idx.
 */
export const MEMBER_FILTER_INDEXES = {
  unverified: 'members_unverified_idx',
  certain_alts: 'members_certain_alts_idx',
} as const satisfies Partial<Record<NarrowMemberFilter, string>>;
