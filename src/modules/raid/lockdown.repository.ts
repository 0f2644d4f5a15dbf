import { sql, type SQL } from 'drizzle-orm';
import { selectRows, type Executor } from '../../db/client';
import { LOCKDOWN_OFF, type LockdownState } from './lockdown-state';

/** The lockdown switch: one row of the `settings` table, read inside the transaction that uses it. */
const LOCKDOWN_KEY = 'lockdown';

/** The stored value of the switch as a scalar subquery (null when it was never set), for statements that read it alongside. */
export function lockdownValueQuery(): SQL {
  return sql`(select value from settings where key = ${LOCKDOWN_KEY})`;
}

/** The switch from its stored value (absent or null: off). */
export function lockdownFromValue(value: Partial<LockdownState> | null | undefined): LockdownState {
  if (!value) return LOCKDOWN_OFF;
  return { on: value.on === true, reason: value.reason ?? null, since: value.since ?? null, by: value.by ?? null };
}

export async function readLockdown(executor: Executor, forUpdate = false): Promise<LockdownState> {
  const [row] = await selectRows<{ value: Partial<LockdownState> }>(
    executor,
    sql`select value from settings where key = ${LOCKDOWN_KEY}${forUpdate ? sql` for update` : sql``}`,
  );
  return lockdownFromValue(row?.value);
}

export async function writeLockdown(executor: Executor, state: LockdownState, now: Date): Promise<void> {
  await executor.execute(
    sql`insert into settings (key, value, updated_at) values (${LOCKDOWN_KEY}, ${JSON.stringify(state)}::jsonb, ${now.toISOString()}::timestamptz)
        on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
  );
}
