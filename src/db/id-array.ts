import { sql, type SQL } from 'drizzle-orm';

/**
 * A list of row ids as ONE parameter, a `bigint[]` (`id = any(${idArray(ids)})`). Drizzle writes a
 * JavaScript array in a statement as one `$n` per element, so every length would be a new statement
 * text, prepared and kept on its own (pglite-prepared.ts); the array is one
 * text whatever the number of ids. Refuses anything but whole numbers.
 */
export function idArray(ids: readonly number[]): SQL {
  for (const id of ids) if (!Number.isSafeInteger(id)) throw new TypeError(`Not a row id: ${String(id)}`);
  return sql`${`{${ids.join(',')}}`}::bigint[]`;
}
