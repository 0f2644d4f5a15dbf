import { PgDialect } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { idArray } from './id-array';

const render = (chunk: ReturnType<typeof sql>) => {
  const { sql: text, params } = new PgDialect().sqlToQuery(chunk);
  return { sql: text, params };
};

describe('row ids as one array parameter', () => {
  it('is one parameter and one statement text whatever the number of ids', () => {
    expect(render(sql`where id = any(${idArray([3, 1, 2])})`)).toEqual({ sql: 'where id = any($1::bigint[])', params: ['{3,1,2}'] });
    expect(render(sql`where id = any(${idArray([7])})`)).toEqual({ sql: 'where id = any($1::bigint[])', params: ['{7}'] });
    expect(render(sql`where id = any(${idArray([])})`)).toEqual({ sql: 'where id = any($1::bigint[])', params: ['{}'] });
  });

  it('refuses what is not a whole number', () => {
    for (const bad of [1.5, Number.NaN, Infinity, 2 ** 60]) expect(() => idArray([1, bad])).toThrow('Not a row id');
  });
});
