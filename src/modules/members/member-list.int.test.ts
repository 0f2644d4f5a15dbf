import { buildMember } from '../../test-support/factories';
import { describeEngines, resetDatabase } from '../../test-support/database';
import { asc, sql } from 'drizzle-orm';
import { selectRows } from '../../db/client';
import { linkCountsSql } from '../../db/member-filters';
import { members } from '../../db/schema';
import {
  linkCounts,
  MEMBER_FILTERS,
  matchesMemberFilter,
  matchesMemberSearch,
  type ManualAltStatus,
  type MemberStatus,
} from '../../shared/member-badges';
import { countMembers } from './member-count.repository';
import { listWithTotal } from './member-list-total';
import {
  decodeMemberCursor,
  encodeMemberCursor,
  escapeLikePattern,
  firstPageCountedQuery,
  listMembers,
  type MemberCursor,
} from './members.repository';

describe('escapeLikePattern', () => {
  it.each([
    ['plain', 'plain'],
    ['50%', '50\\%'],
    ['a_b', 'a\\_b'],
    ['back\\slash', 'back\\\\slash'],
  ])('%s', (input, escaped) => expect(escapeLikePattern(input)).toBe(escaped));
});

describe('member cursor', () => {
  it('round-trips and refuses anything else', () => {
    const cursor: MemberCursor = { verifiedAt: '2026-01-01T00:00:00.123456Z', id: 42 };
    expect(decodeMemberCursor(encodeMemberCursor(cursor))).toEqual(cursor);
    for (const bad of [
      '',
      'nope',
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from('["2026-01-01", 1]').toString('base64url'),
      Buffer.from('["2026-01-01T00:00:00.123456Z", -1]').toString('base64url'),
    ]) {
      expect(decodeMemberCursor(bad)).toBeNull();
    }
  });
});

describeEngines('member list queries', (getDatabase, engine) => {
  beforeEach(async () => resetDatabase(getDatabase()));

  it('filters exactly as the shared predicates say, for every combination', async () => {
    const { db } = getDatabase();
    const created: Awaited<ReturnType<typeof buildMember>>[] = [];
    let n = 0;
    for (const status of ['verified', 'limited_access'] as MemberStatus[]) {
      for (const rulesConfirmed of [true, false]) {
        for (const manualAltStatus of [null, 'suspected_alt', 'certain_alt'] as (ManualAltStatus | null)[]) {
          for (const isLinkedAsAlt of [false, true]) {
            created.push(
              await buildMember(db, {
                discordId: `40000000000000${String(++n).padStart(4, '0')}`,
                status,
                rulesConfirmed,
                manualAltStatus,
                isLinkedAsAlt,
              }),
            );
          }
        }
      }
    }
    for (const filter of MEMBER_FILTERS) {
      const expected = created
        .filter((m) => matchesMemberFilter(m, filter))
        .map((m) => m.id)
        .sort((a, b) => a - b);
      const page = await listMembers(db, { filter, limit: 100 });
      expect({ filter, ids: page.members.map((m) => m.id).sort((a, b) => a - b) }).toEqual({ filter, ids: expected });
      expect(await countMembers(db, { filter, limit: 100 })).toEqual({ total: expected.length, exact: true, capped: false });
    }
    // the SQL copy of "a link that counts" the filters build on, row by row against linkCounts
    const counted = await db
      .select({ id: members.id, counts: linkCountsSql(members).mapWith(Boolean) })
      .from(members)
      .orderBy(asc(members.id));
    expect(counted).toEqual(created.map((m) => ({ id: m.id, counts: linkCounts(m) })).sort((a, b) => a.id - b.id));
    expect(counted.filter((r) => r.counts)).toHaveLength(4);
  });

  it('searches usernames case-insensitively and Discord IDs by substring, with %, _ and \\ taken literally', async () => {
    const { db } = getDatabase();
    const names = ['100%real', '1000real', 'snake_case', 'snakeXcase', 'back\\slash', 'backslash', 'CoolCat'];
    const created: Awaited<ReturnType<typeof buildMember>>[] = [];
    for (let i = 0; i < names.length; i++) created.push(await buildMember(db, { discordId: `5000000000000000${i}0`, username: names[i]! }));
    const search = async (text: string) =>
      (await listMembers(db, { filter: 'all', search: text, limit: 50 })).members.map((m) => m.username).sort();
    const expected = (text: string) =>
      created
        .filter((m) => matchesMemberSearch(m, text))
        .map((m) => m.username)
        .sort();
    for (const text of ['%', '0%r', '_', 'e_c', '\\', 'k\\s', 'coolcat', 'COOL', '00000000000000030', '30', ' cat ']) {
      expect({ text, found: await search(text) }).toEqual({ text, found: expected(text) });
    }
    expect(await search('%')).toEqual(['100%real']);
    expect(await search('_')).toEqual(['snake_case']);
    expect(await countMembers(db, { filter: 'all', search: '_', limit: 50 })).toEqual({ total: 1, exact: true, capped: false });
  });

  it('a search reads back as exactly the text typed: quotes, backslashes, $1, comment marks, injections', async () => {
    const { db } = getDatabase();
    const names = ["o'brien", "it''s", 'dollar$1', 'star*/slash', 'back\\slash', "E'x'", 'zoë', "x' or '1'='1", 'plain'];
    const created: Awaited<ReturnType<typeof buildMember>>[] = [];
    for (let i = 0; i < names.length; i++) created.push(await buildMember(db, { discordId: `5100000000000000${i}0`, username: names[i]! }));
    const expected = (text: string) =>
      created
        .filter((m) => matchesMemberSearch(m, text))
        .map((m) => m.username)
        .sort();
    const texts = [
      "'",
      "''",
      "o'b",
      '$1',
      '*/',
      '/*',
      '\\',
      "\\'",
      "E'",
      'zoë',
      "' or '1'='1",
      "x' or '1'='1",
      "'; delete from members; --",
      'plain',
    ];
    for (const text of texts) {
      // the first page with its count and a list page
      const first = await listWithTotal(db, { filter: 'all', search: text, limit: 50 });
      const listed = await listMembers(db, { filter: 'all', search: text, limit: 50 });
      const want = expected(text);
      expect({ text, first: first.page.members.map((m) => m.username).sort(), total: first.count.total }).toEqual({
        text,
        first: want,
        total: want.length,
      });
      expect({ text, listed: listed.members.map((m) => m.username).sort() }).toEqual({ text, listed: want });
    }
    expect(expected("'")).toEqual(["E'x'", "it''s", "o'brien", "x' or '1'='1"]);
    expect(expected("' or '1'='1")).toEqual(["x' or '1'='1"]);
    // nothing was changed by any of them
    expect((await listMembers(db, { filter: 'all', limit: 50 })).members).toHaveLength(names.length);
  });

  // PGlite keeps each statement text prepared (pglite-prepared.ts): a search's first page, every value in its text, is planned once
  (engine === 'pglite' ? it : it.skip)(
    'a repeated search runs on the plan made for its word at its first run: no parameter, no planning again [pglite]',
    async () => {
      const database = getDatabase();
      for (let i = 0; i < 3; i++) await buildMember(database.db, { discordId: `5200000000000000${i}0`, username: `foxwizard${i}` });
      const statement = firstPageCountedQuery(database.db, { filter: 'all', search: 'foxwizard', limit: 48 }, 100).toSQL();
      expect(statement.params).toEqual([]);
      for (let i = 0; i < 4; i++)
        expect((await listWithTotal(database.db, { filter: 'all', search: 'foxwizard', limit: 48 })).count.total).toBe(3);
      const plans = await database.query<{ generic_plans: number; custom_plans: number }>(
        'select generic_plans::int, custom_plans::int from pg_prepared_statements where statement = $1',
        [statement.sql],
      );
      expect(plans.rows).toEqual([{ generic_plans: 4, custom_plans: 0 }]);
    },
  );

  // a named statement could switch, after five runs, to one plan for every word: a rare word would walk the whole list
  (engine === 'postgres' ? it : it.skip)(
    'sends a search unnamed, planned for its word at each run, and names the pages without one [postgres]',
    async () => {
      const named = await getDatabase().db.transaction(async (tx) => {
        await listWithTotal(tx, { filter: 'all', search: 'fox', limit: 48 });
        await listWithTotal(tx, { filter: 'all', search: 'fox', limit: 1, cursor: { verifiedAt: '2999-01-01T00:00:00.000000Z', id: 1 } });
        await listWithTotal(tx, { filter: 'all', limit: 48 });
        // the named statements of this transaction's connection
        return selectRows<{ name: string; statement: string }>(tx, sql`select name, statement from pg_prepared_statements`);
      });
      expect(named.map((row) => row.name)).toContain('gk_member_list_all_first');
      expect(named.filter((row) => row.statement.includes('ilike'))).toEqual([]);
    },
  );

  it('pages by (verified_at, id) without gaps or repeats, at microsecond precision', async () => {
    const database = getDatabase();
    const ids: number[] = [];
    for (let i = 0; i < 11; i++)
      ids.push((await buildMember(database.db, { discordId: `6000000000000000${String(i).padStart(2, '0')}` })).id);
    // ties, and timestamps that differ below the millisecond a JS Date can hold
    const stamps = [
      '2026-01-01T00:00:00.123456Z',
      '2026-01-01T00:00:00.123456Z',
      '2026-01-01T00:00:00.123457Z',
      '2026-01-01T00:00:00.123001Z',
      '2026-01-01T00:00:00.123999Z',
    ];
    for (let i = 0; i < ids.length; i++) {
      await database.query('update members set verified_at = $1::timestamptz where id = $2', [stamps[i % stamps.length], ids[i]]);
    }
    const expected = (await database.query<{ id: number | string }>('select id from members order by verified_at desc, id desc')).rows.map(
      (r) => Number(r.id),
    );
    const seen: number[] = [];
    let cursor: MemberCursor | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await listMembers(database.db, { filter: 'all', limit: 3, cursor });
      seen.push(...page.members.map((m) => m.id));
      if (!page.nextCursor) break;
      cursor = decodeMemberCursor(page.nextCursor)!;
    }
    expect(seen).toEqual(expected);
  });
});
