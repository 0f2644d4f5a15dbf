import type { Database } from '../../db/client';

/** A table as its statistics are gathered: its name and which columns are sampled more widely than the default. */
export interface AnalyzedTable {
  /** the table's name as SQL (schema-qualified and quoted where needed: `oid::regclass`) */
  name: string;
  /** columns (quoted) whose statistics target is above the default: each makes ANALYZE sample more rows */
  wide: string[];
  /** the other columns (quoted) that keep statistics */
  other: string[];
  /** an index on an expression: its statistics are gathered only by an ANALYZE of the whole table */
  hasExpressionIndex: boolean;
}

/**
 * The ANALYZE statements of one table. A table whose columns all keep the default statistics
 * target is one statement. ANALYZE samples 300 rows per unit of the largest target among the
 * columns it is given, so a table with wider columns (members' username and Discord ID,
 * target 1000: migration 0009) is analyzed column by column for those, then the rest in one
 * statement at the default sample: at 1M members the whole table took 5.7-8.0 s in one
 * statement, the username alone 1.3 s. A table with an expression index stays whole.
 */
export function analyzeStatements(table: AnalyzedTable): string[] {
  if (table.wide.length === 0 || table.hasExpressionIndex) return [`ANALYZE ${table.name}`];
  return [
    ...table.wide.map((column) => `ANALYZE ${table.name} (${column})`),
    ...(table.other.length > 0 ? [`ANALYZE ${table.name} (${table.other.join(', ')})`] : []),
  ];
}

/** Every permanent table (the catalogs included, as a database-wide ANALYZE does), with its columns by statistics target. */
async function analyzedTables(database: Database): Promise<AnalyzedTable[]> {
  // attstattarget: null (PostgreSQL 17) or -1 (before) is the default; 0 keeps no statistics
  const { rows } = await database.query<{ name: string; wide: string[]; other: string[]; has_expression_index: boolean }>(
    `select c.oid::regclass::text as name,
            array(select quote_ident(a.attname) from pg_attribute a
                   where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                     and a.attstattarget > current_setting('default_statistics_target')::int order by a.attnum) as wide,
            array(select quote_ident(a.attname) from pg_attribute a
                   where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                     and coalesce(a.attstattarget, -1) <> 0
                     and coalesce(a.attstattarget, -1) <= current_setting('default_statistics_target')::int order by a.attnum) as other,
            exists (select 1 from pg_index i where i.indrelid = c.oid and i.indexprs is not null) as has_expression_index
       from pg_class c
      where c.relkind in ('r', 'm', 'p') and c.relpersistence = 'p'
      order by c.oid`,
  );
  // array(subquery) is an empty array, never null, for a table without such columns
  return rows.map((row) => ({ name: row.name, wide: row.wide, other: row.other, hasExpressionIndex: row.has_expression_index }));
}

/**
 * What autovacuum and the background writer do on a PostgreSQL server, for the embedded
 * engine (PGlite has neither), after the hourly purge: VACUUM, ANALYZE, then a CHECKPOINT
 * (else the pages the hour dirtied are written out by whichever query next needs a buffer).
 *
 * PGlite runs one statement at a time, so a visitor's statement waits for the one running.
 * One database-wide `VACUUM ANALYZE` took 8.0 s at 1M members, and every sign-in of those
 * 8 s waited for it. So the work is cut into statements, each waited for before the next
 * is sent: VACUUM (71 ms for the whole database at that size, most pages all-visible), then
 * each table's ANALYZE (`analyzeStatements`), and the statements that queued meanwhile run
 * between them. The whole takes as long as before; the longest wait it causes is the
 * largest piece (1.3 s at 1M members).
 */
export async function upkeepEmbedded(database: Database): Promise<void> {
  await database.exec('VACUUM');
  for (const table of await analyzedTables(database)) {
    for (const statement of analyzeStatements(table)) await database.exec(statement);
  }
  await database.exec('CHECKPOINT');
}
