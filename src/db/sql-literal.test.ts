import { PgDialect } from 'drizzle-orm/pg-core';
import { sql, type SQL } from 'drizzle-orm';
import { literalLimit, textLiteral } from './sql-literal';

const render = (chunk: SQL) => new PgDialect().sqlToQuery(chunk);

describe('literals written into a statement', () => {
  it.each([
    ['plain', "E'plain'"],
    ["o'brien", "E'o''brien'"],
    ['back\\slash', "E'back\\\\slash'"],
    ["\\'", "E'\\\\'''"],
    ['$1 */ /* --', "E'$1 */ /* --'"],
    ['zoë', "E'zoë'"],
  ])('text %j → %s, with no parameter', (value, literal) => {
    expect(render(sql`select ${textLiteral(value)}`)).toEqual({ sql: `select ${literal}`, params: [] });
  });

  it('refuses a NUL character (it would end the statement text early)', () => {
    expect(() => textLiteral('a\u0000b')).toThrow('A text literal cannot contain the NUL character');
  });

  it('writes whole numbers only', () => {
    expect(render(sql`limit ${literalLimit(49) as unknown as SQL}`)).toEqual({ sql: 'limit 49', params: [] });
    for (const bad of [1.5, Number.NaN, Infinity, 2 ** 60, '1; drop table members' as unknown as number])
      expect(() => literalLimit(bad)).toThrow('Not a whole number');
  });
});
