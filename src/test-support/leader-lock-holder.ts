import type { Database } from '../db/client';
import { BOT_LEADER_LOCK } from '../discord/bot/leader-lock';

/** how long to wait for an ended holder's lock to be released (its backend exits after its client hears so) */
const RELEASE_WAIT_MS = 5_000;

/**
 * Ends the PostgreSQL connection that holds the bot leader lock in this test's database, as if
 * its process had crashed. Only this database's: every test file has a database of its own, and
 * a holder looked up server-wide also ended the leaders of bots that tests in other jest workers
 * were running at the time (they stopped answering commands, or lost a failover check).
 *
 * Resolves once the lock is free. An ended backend tells its client first and releases its locks
 * while it exits, so a caller that tried the lock the moment its connection reported the loss
 * could still find it held (seen once in CI, on a loaded machine): a crash's lock is free only
 * once the server has finished with that backend, and this waits for that moment.
 */
export async function terminateLeaderLockHolder(database: Database): Promise<number> {
  const holders = `from pg_locks where locktype = 'advisory' and objid = $1 and pid <> pg_backend_pid()
       and database = (select oid from pg_database where datname = current_database())`;
  const { rows } = await database.query<{ n: number }>(`select count(pg_terminate_backend(pid))::int as n ${holders}`, [BOT_LEADER_LOCK]);
  const deadline = Date.now() + RELEASE_WAIT_MS;
  for (;;) {
    const left = await database.query<{ n: number }>(`select count(*)::int as n ${holders}`, [BOT_LEADER_LOCK]);
    if (left.rows[0]?.n === 0) break;
    if (Date.now() > deadline) throw new Error(`the ended leader's lock was still held after ${RELEASE_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return rows[0]?.n ?? 0;
}
