import { and, desc, entityKind, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { alias, integer, jsonb, pgEnum, pgSchema, pgTable, pgView, text, timestamp, type PgDialect } from 'drizzle-orm/pg-core';
import { members, verificationAttempts } from './schema';
import { checkRenderingAgainstDrizzle, installSqlRenderer, renderSql } from './sql-render';

/** A database with no connection: statements are built and rendered, never run. */
function mockDb() {
  return drizzle.mock({ casing: 'snake_case' });
}
type MockDb = ReturnType<typeof mockDb>;
const dialectOf = (db: MockDb) => (db as unknown as { dialect: PgDialect }).dialect;

/** Drizzle's own rendering of a statement, with the same dialect. */
function drizzleRendering(db: MockDb, statement: SQL, invokeSource?: 'indexes') {
  const dialect = dialectOf(db);
  return statement.toQuery({
    casing: (dialect as unknown as { casing: never }).casing,
    escapeName: dialect.escapeName,
    escapeParam: dialect.escapeParam,
    escapeString: dialect.escapeString,
    prepareTyping: dialect.prepareTyping,
    invokeSource,
  });
}

const settingsSchema = pgSchema('owner');
const stored = settingsSchema.table('stored', { key: text('key').notNull(), value: jsonb('value'), changedAt: timestamp('changed_at', { withTimezone: true }) });
const mood = pgEnum('mood', ['calm', 'busy']);
const visits = pgTable('visits', { id: integer('id'), memberId: integer('member_id'), mood: mood('mood') });
const recent = pgView('recent_members').as((qb) => qb.select({ id: members.id, username: members.username }).from(members));

describe('renderSql', () => {
  const db = mockDb();
  const at = new Date('2026-11-26T10:00:00.000Z');

  /** Every kind of chunk Drizzle renders, each in a statement the product could build. */
  const statements: [string, () => SQL][] = [
    ['a select with a filter, an order and a limit', () => db.select().from(members).where(and(eq(members.discordId, '123'), gt(members.verifiedAt, at), isNull(members.gateAction))).orderBy(desc(members.verifiedAt)).limit(5).getSQL()],
    ['an aliased table joined to itself', () => {
      const other = alias(members, 'other');
      return db.select({ a: members.id, b: other.id }).from(members).innerJoin(other, eq(other.networkHash, members.networkHash)).getSQL();
    }],
    ['a list of values (inArray)', () => db.select({ id: members.id }).from(members).where(inArray(members.id, [1, 2, 3])).getSQL()],
    ['an upsert with dates, nulls, expressions and returning', () =>
      db.insert(members).values({ discordId: '9', username: 'ann', avatarUrl: null, verifiedAt: at, lastSeenAt: at })
        .onConflictDoUpdate({ target: members.discordId, set: { username: 'ann', verificationCount: sql`${members.verificationCount} + 1` } })
        .returning({ id: members.id }).getSQL()],
    ['an update with a subquery in its filter', () =>
      db.update(verificationAttempts).set({ endedAs: 'pending' }).where(inArray(verificationAttempts.memberId, db.select({ id: members.id }).from(members).where(eq(members.username, 'x')))).getSQL()],
    ['a table in another schema, with json and a timestamp', () => db.insert(stored).values({ key: 'k', value: { a: [1, 'two'] }, changedAt: at }).getSQL()],
    ['a subquery in FROM, and its aliased fields', () => {
      const counted = db.select({ member: verificationAttempts.memberId, n: sql<number>`count(*)`.as('n') }).from(verificationAttempts).groupBy(verificationAttempts.memberId).as('counted');
      return db.select({ member: counted.member, n: counted.n }).from(counted).where(gt(counted.n, 2)).orderBy(desc(counted.n)).getSQL();
    }],
    ['a WITH query', () => {
      const young = db.$with('young').as(db.select({ id: members.id }).from(members).where(gt(members.createdAt, at)));
      return db.with(young).select().from(young).getSQL();
    }],
    ['a view', () => db.select().from(recent).where(eq(recent.username, 'bo')).getSQL()],
    ['an enum type and column', () => sql`select ${visits.mood}, 'calm'::${mood} from ${visits} where ${visits.mood} = ${'busy'}`],
    ['placeholders, alone and as column values', () =>
      db.insert(visits).values({ id: sql.placeholder('id'), memberId: 3 }).returning().getSQL().append(sql` -- ${sql.placeholder('note')}`)],
    ['raw text, identifiers, joins and empty parts', () => sql`select ${sql.identifier('a"b')}, ${sql.raw('1 + 1')} from ${members} ${undefined}where ${sql.join([sql`${members.id} = ${1}`, sql`${members.username} <> ${'x'}`], sql` and `)}`],
    ['values written into the text (inlineParams)', () => sql`select ${1}, ${true}, ${null}, ${"it's"}, ${at}, ${{ a: 1 }}, ${[1, 2]}, ${members.id}`.inlineParams()],
    ['an inline part inside a parameterised statement', () => sql`select ${'kept'}, ${sql`${'inlined'}`.inlineParams()}, ${'kept too'}`],
  ];

  it.each(statements)('renders %s as Drizzle does', (_name, build) => {
    const statement = build();
    const expected = drizzleRendering(db, statement);
    expect(renderSql(dialectOf(db) as never, statement)).toEqual(expected);
  });

  it('renders index columns without their table, as Drizzle does for migrations', () => {
    const statement = sql`${members.verifiedAt} desc, ${members.id}`;
    expect(renderSql(dialectOf(db) as never, statement, 'indexes')).toEqual(drizzleRendering(db, statement, 'indexes'));
    expect(renderSql(dialectOf(db) as never, statement, 'indexes').sql).toBe('"verified_at" desc, "id"');
  });

  it('gives every parameter its typing, and a statement with none no typings', () => {
    const withParams = renderSql(dialectOf(db) as never, db.insert(stored).values({ key: 'k', value: { a: 1 }, changedAt: at }).getSQL());
    expect(withParams.params).toEqual(['k', '{"a":1}', '2026-11-26T10:00:00.000Z']);
    expect(withParams.typings).toEqual(['none', 'json', 'timestamp']);
    expect(renderSql(dialectOf(db) as never, sql`select 1`)).toEqual({ sql: 'select 1', params: [] });
  });
});

describe('installSqlRenderer', () => {
  beforeEach(() => checkRenderingAgainstDrizzle(true));
  afterEach(() => checkRenderingAgainstDrizzle(false));

  it("renders the database's statements, as Drizzle would have", () => {
    const db = mockDb();
    const before = db.select().from(members).where(eq(members.id, 7)).toSQL();
    installSqlRenderer(db);
    expect(db.select().from(members).where(eq(members.id, 7)).toSQL()).toEqual(before);
  });

  it('throws, when checking, on a statement the two render differently', () => {
    // a chunk from another copy of Drizzle: Drizzle knows it by its kind, this renderer does not
    class ForeignStringChunk {
      static readonly [entityKind] = 'StringChunk';
      constructor(readonly value: string[]) {}
    }
    const db = mockDb();
    installSqlRenderer(db);
    const statement = sql`select ${new ForeignStringChunk(['1'])}`;
    expect(() => dialectOf(db).sqlToQuery(statement)).toThrow(/renderSql differs from Drizzle's rendering/);
    checkRenderingAgainstDrizzle(false);
    expect(dialectOf(db).sqlToQuery(statement).sql).toBe('select $1');
  });

  it('refuses an object that is not a Drizzle database', () => {
    expect(() => installSqlRenderer({})).toThrow(/no Drizzle dialect/);
  });
});
