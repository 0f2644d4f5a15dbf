import { sql, type SQL } from 'drizzle-orm';

/**
 * A list of row ids as ONE parameter, a `bigint[]` (`id = any(${idArray(ids)})`). Drizzle writes a
 * JavaScript array in a statement as one `$n` per element, so every length would be a new statement
 * text, prepared and kept on its own (pglite-prepared.ts); the array is one
 * text whatever the number of ids. Refuses anything but whole numbers.
 */
export function idArray(ids: readonly number[]): SQL {
  return sql`${idArrayText(ids)}::bigint[]`;
}

/** The array's value alone (`{1,2,3}`), for a placeholder cast to `bigint[]` in a prepared statement. */
export function idArrayText(ids: readonly number[]): string {
  for (const id of ids) if (!Number.isSafeInteger(id)) throw new TypeError(`Not a row id: ${String(id)}`);
  return `{${ids.join(',')}}`;
}
