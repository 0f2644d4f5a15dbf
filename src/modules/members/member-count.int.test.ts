import { sql } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { members } from '../../db/schema';
import type { MemberFilter } from '../../shared/member-badges';
import { buildMember } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { countCapFor, countMembers, totalFromFirstPage } from './member-count.repository';
import { listWithTotal } from './member-list-total';
import { decodeMemberCursor, firstPageCountedQuery, listFirstPageCounted, MEMBER_LIST_ORDER, memberMatchSql } from './members.repository';

describe('countCapFor', () => {
  const limits = { cap: 1000, searchCap: 100 };
  it('caps searches lower than filters, never below the page size', () => {
    expect(countCapFor({ limit: 48 }, limits)).toBe(1000);
    expect(countCapFor({ limit: 48, search: 'ninja' }, limits)).toBe(100);
    expect(countCapFor({ limit: 48, search: '   ' }, limits)).toBe(1000);
    expect(countCapFor({ limit: 200, search: 'ninja' }, limits)).toBe(200);
    expect(countCapFor({ limit: 200 }, { cap: 50, searchCap: 10 })).toBe(200);
  });
});

describe('totalFromFirstPage', () => {
  it('knows the total of a first page with nothing after it, and only then', () => {
    expect(totalFromFirstPage({}, { members: [1, 2], nextCursor: null })).toEqual({ total: 2, exact: true, capped: false });
    expect(totalFromFirstPage({}, { members: [], nextCursor: null })).toEqual({ total: 0, exact: true, capped: false });
    expect(totalFromFirstPage({}, { members: [1, 2], nextCursor: 'more' })).toBeNull();
    expect(
      totalFromFirstPage({ cursor: { verifiedAt: '2026-01-01T00:00:00.000000Z', id: 1 } }, { members: [1], nextCursor: null }),
    ).toBeNull();
  });
});

describeEngines('member totals', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  async function seed(count: number): Promise<void> {
    const { db } = getDatabase();
    for (let i = 0; i < count; i++) {
      await buildMember(db, {
        discordId: `7000000000000000${String(i).padStart(2, '0')}`,
        username: i % 2 === 0 ? `ninja${i}` : `rose${i}`,
        rulesConfirmed: i % 3 !== 0,
      });
    }
  }

  it('counts exactly up to the cap', async () => {
    await seed(6);
    const { db } = getDatabase();
    const limits = { cap: 6, searchCap: 3 };
    expect(await countMembers(db, { filter: 'all', limit: 2 }, limits)).toEqual({ total: 6, exact: true, capped: false });
    expect(await countMembers(db, { filter: 'unverified', limit: 2 }, limits)).toEqual({ total: 2, exact: true, capped: false });
    expect(await countMembers(db, { filter: 'all', search: 'ninja', limit: 2 }, limits)).toEqual({ total: 3, exact: true, capped: false });
  });

  it('reports a filter or search above its cap as the cap, a lower bound', async () => {
    await seed(6);
    const { db } = getDatabase();
    const limits = { cap: 3, searchCap: 2 };
    expect(await countMembers(db, { filter: 'verified', limit: 1 }, limits)).toEqual({ total: 3, exact: false, capped: true });
    expect(await countMembers(db, { filter: 'all', search: 'ninja', limit: 1 }, limits)).toEqual({ total: 2, exact: false, capped: true });
    // never below the page size
    expect(await countMembers(db, { filter: 'all', search: 'ninja', limit: 3 }, limits)).toEqual({ total: 3, exact: true, capped: false });
  });

  it("counts a search's first page in the listing statement, up to the cap", async () => {
    await seed(6);
    const { db } = getDatabase();
    const counted = await listFirstPageCounted(db, { filter: 'all', search: 'ninja', limit: 2 }, 2);
    expect({ names: counted.members.map((m) => m.username), matched: counted.matched, more: counted.nextCursor !== null }).toEqual({
      names: ['ninja4', 'ninja2'],
      matched: 3,
      more: true,
    });
    expect((await listFirstPageCounted(db, { filter: 'verified', search: 'ninja', limit: 5 }, 100)).matched).toBe(2);
    const { page, count } = await listWithTotal(db, { filter: 'all', search: 'NINJA', limit: 2 });
    expect({ names: page.members.map((m) => m.username), count }).toEqual({
      names: ['ninja4', 'ninja2'],
      count: { total: 3, exact: true, capped: false },
    });
    const next = await listWithTotal(db, { filter: 'all', search: 'ninja', limit: 2, cursor: decodeMemberCursor(page.nextCursor!)! });
    expect({ names: next.page.members.map((m) => m.username), count: next.count }).toEqual({
      names: ['ninja0'],
      count: { total: 3, exact: true, capped: false },
    });
  });

  it('estimates the whole table above the cap, and says "at least" while the statistics are behind', async () => {
    await seed(6);
    const database = getDatabase();
    const limits = { cap: 3, searchCap: 2 };
    // never analysed: no estimate to give
    expect(await countMembers(database.db, { filter: 'all', limit: 1 }, limits)).toEqual({ total: 3, exact: false, capped: true });
    await database.exec('analyze members');
    expect(await countMembers(database.db, { filter: 'all', limit: 1 }, limits)).toEqual({ total: 6, exact: false, capped: false });
    // an estimate below what was counted is stale: the cap says more
    await database.exec('delete from members');
    await database.exec('analyze members');
    await seed(5);
    expect(await countMembers(database.db, { filter: 'all', limit: 1 }, limits)).toEqual({ total: 3, exact: false, capped: true });
  });
});

describeEngines('searches across a larger table', (getDatabase) => {
  const MEMBERS = 3_000;
  beforeAll(async () => {
    const database = getDatabase();
    await resetDatabase(database);
    // newest first by id; the 3 oldest are zebras, every 10th of the newest 500 a ninja
    await database.exec(`insert into members (discord_id, username, verified_at, last_seen_at, created_at, updated_at)
      select (800000000000000000 + g)::text,
        case when g <= 3 then 'zebra' || g when g > ${MEMBERS - 500} and g % 10 = 0 then 'ninja' || g else 'member' || g end,
        timestamptz '2026-01-01' + g * interval '1 second', now(), now(), now()
      from generate_series(1, ${MEMBERS}) g`);
    await database.exec('analyze members');
  });

  it('finds a rare word among the oldest members, newest first, and pages on', async () => {
    const { db } = getDatabase();
    const { page, count } = await listWithTotal(db, { filter: 'all', search: 'zebra', limit: 2 });
    expect({ names: page.members.map((m) => m.username), count }).toEqual({
      names: ['zebra3', 'zebra2'],
      count: { total: 3, exact: true, capped: false },
    });
    const next = await listWithTotal(db, { filter: 'all', search: 'zebra', limit: 2, cursor: decodeMemberCursor(page.nextCursor!)! });
    expect({ names: next.page.members.map((m) => m.username), count: next.count }).toEqual({
      names: ['zebra1'],
      count: { total: 3, exact: true, capped: false },
    });
  });

  it('takes a common word newest first, counts it up to the cap and pages on from the cursor', async () => {
    const { db } = getDatabase();
    const first = await listFirstPageCounted(db, { filter: 'all', search: 'ninja', limit: 2 }, 20);
    expect({ names: first.members.map((m) => m.username), matched: first.matched }).toEqual({
      names: [`ninja${MEMBERS}`, `ninja${MEMBERS - 10}`],
      matched: 21,
    });
    const next = await listWithTotal(db, { filter: 'all', search: 'ninja', limit: 2, cursor: decodeMemberCursor(first.nextCursor!)! });
    expect(next.page.members.map((m) => m.username)).toEqual([`ninja${MEMBERS - 20}`, `ninja${MEMBERS - 30}`]);
    expect(next.count).toEqual({ total: 50, exact: true, capped: false });
  });

  it("reads whole only the first page's rows (and one more), not every counted match", async () => {
    const { db } = getDatabase();
    const query = firstPageCountedQuery(db, { filter: 'all', search: 'ninja', limit: 2 }, 20);
    const plan = (await selectRows<{ 'QUERY PLAN': string }>(db, sql`explain (analyze, costs off, timing off) ${query.getSQL()}`)).map(
      (r) => r['QUERY PLAN'],
    );
    // the outer scan of members (the counting one inside the CTE is members_1): rows × loops it returned
    const outer = plan.find((line) => / on members( |$)/.test(line) && !line.includes('members_1'));
    const [, rows, loops] = /actual rows=(\d+) loops=(\d+)/.exec(outer ?? '') ?? [];
    expect({ outer: outer !== undefined, read: Number(rows) * Number(loops) }).toEqual({ outer: true, read: 3 });
    // and the CTE still counted 21 matches
    expect((await listFirstPageCounted(db, { filter: 'all', search: 'ninja', limit: 2 }, 20)).matched).toBe(21);
  });

  it('keeps fine statistics on the searched columns (the planner guesses how common a word is from them)', async () => {
    const rows = await selectRows<{ attname: string; target: number }>(
      getDatabase().db,
      sql`select attname, attstattarget::int as target from pg_attribute where attrelid = 'members'::regclass and attname in ('username', 'discord_id') order by attname`,
    );
    expect(rows).toEqual([
      { attname: 'discord_id', target: 1000 },
      { attname: 'username', target: 1000 },
    ]);
  });
});

describeEngines('member list plans', (getDatabase) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  /** The plan of `select 1 … order by <list order> limit 10`, with sequential and bitmap scans priced out. */
  async function planOf(filter: MemberFilter, cursor: boolean): Promise<string> {
    return getDatabase().db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      const after = cursor ? sql`and (${members.verifiedAt}, ${members.id}) < (now(), 1::bigint)` : sql``;
      const rows = await selectRows<{ 'QUERY PLAN': string }>(
        tx,
        sql`explain select 1 from ${members} where ${memberMatchSql(filter) ?? sql`true`} ${after} order by ${sql.join(MEMBER_LIST_ORDER, sql`, `)} limit 10`,
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }

  it.each([
    ['unverified', 'members_unverified_idx'],
    ['certain_alts', 'members_certain_alts_idx'],
    ['verified', 'members_verified_at_id_idx'],
    ['all', 'members_verified_at_id_idx'],
  ] as const)('%s: the page, the next page and the count walk %s', async (filter, index) => {
    for (const cursor of [false, true]) expect(await planOf(filter, cursor)).toContain(index);
  });
});
