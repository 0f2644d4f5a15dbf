import { sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';

/**
 * The owner's settings live in one row of the `settings` table: the stored values and a
 * version that every write increments. Readers poll the row (one primary-key read) to
 * notice a change made by another process.
 */
export const OWNER_SETTINGS_KEY = 'owner_settings';

export interface StoredSettingsRow {
  version: number;
  values: Record<string, unknown>;
  updatedAt: Date | null;
}

interface RawRow {
  value: { version?: number; values?: Record<string, unknown> } | null;
  updated_ms: number | string | null;
}

function toRow(raw: RawRow | undefined): StoredSettingsRow {
  return {
    version: Number(raw?.value?.version ?? 0),
    values: raw?.value?.values ?? {},
    updatedAt: raw?.updated_ms == null ? null : new Date(Number(raw.updated_ms)),
  };
}

export async function readStoredSettings(executor: Executor): Promise<StoredSettingsRow> {
  const [row] = await selectRows<RawRow>(
    executor,
    sql`select value, (extract(epoch from updated_at) * 1000)::float8 as updated_ms from settings where key = ${OWNER_SETTINGS_KEY}`,
  );
  return toRow(row);
}

/**
 * Reads the row for update inside a transaction (creating it empty first), so two
 * writers take turns: the second one sees the first one's values and version.
 */
export async function lockStoredSettings(tx: Executor): Promise<StoredSettingsRow> {
  await tx.execute(
    sql`insert into settings (key, value) values (${OWNER_SETTINGS_KEY}, ${JSON.stringify({ version: 0, values: {} })}::jsonb) on conflict (key) do nothing`,
  );
  const [row] = await selectRows<RawRow>(
    tx,
    sql`select value, (extract(epoch from updated_at) * 1000)::float8 as updated_ms from settings where key = ${OWNER_SETTINGS_KEY} for update`,
  );
  return toRow(row);
}

export async function writeStoredSettings(tx: Executor, version: number, values: Record<string, unknown>, now: Date): Promise<void> {
  await tx.execute(
    sql`update settings set value = ${JSON.stringify({ version, values })}::jsonb, updated_at = ${now.toISOString()}::timestamptz where key = ${OWNER_SETTINGS_KEY}`,
  );
}
