import type { Executor } from '../../db/client';
import { countCapFor, countMembers, totalFromFirstPage, type MemberCount } from './member-count.repository';
import { listFirstPageCounted, listMembers, type Member, type MemberListQuery } from './members.repository';

/**
 * One page of the list and the total for its filter and search. A search's first page counts
 * in the same statement (the search runs once); other pages count after listing, unless the
 * first page is all there is (most searches look for one member).
 */
export async function listWithTotal(
  executor: Executor,
  query: MemberListQuery,
): Promise<{ page: { members: Member[]; nextCursor: string | null }; count: MemberCount }> {
  if (query.search?.trim() && !query.cursor) {
    const cap = countCapFor(query);
    const { matched, ...page } = await listFirstPageCounted(executor, query, cap);
    const count = matched > cap ? { total: cap, exact: false, capped: true } : { total: matched, exact: true, capped: false };
    return { page, count };
  }
  const page = await listMembers(executor, query);
  return { page, count: totalFromFirstPage(query, page) ?? (await countMembers(executor, query)) };
}
