import { sql } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { LOCKDOWN_OFF, type LockdownState } from './admission-rules';

/** The lockdown switch: one row of the `settings` table, read inside the transaction that uses it. */
const LOCKDOWN_KEY = 'lockdown';

export async function readLockdown(executor: Executor, forUpdate = false): Promise<LockdownState> {
  const [row] = await selectRows<{ value: Partial<LockdownState> }>(executor, sql`select value from settings where key = ${LOCKDOWN_KEY}${forUpdate ? sql` for update` : sql``}`);
  if (!row?.value) return LOCKDOWN_OFF;
  return { on: row.value.on === true, reason: row.value.reason ?? null, since: row.value.since ?? null, by: row.value.by ?? null };
}

export async function writeLockdown(executor: Executor, state: LockdownState, now: Date): Promise<void> {
  await executor.execute(
    sql`insert into settings (key, value, updated_at) values (${LOCKDOWN_KEY}, ${JSON.stringify(state)}::jsonb, ${now.toISOString()}::timestamptz)
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
  );
}
