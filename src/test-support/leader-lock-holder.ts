import type { Database } from '../db/client';
import { BOT_LEADER_LOCK } from '../discord/bot/leader-lock';

/**
 * Ends the PostgreSQL connection that holds the bot leader lock in this test's database, as if
 * its process had crashed. Only this database's: every test file has a database of its own, and
 * a holder looked up server-wide also ended the leaders of bots that tests in other jest workers
 * were running at the time (they stopped answering commands, or lost a failover check).
 */
export async function terminateLeaderLockHolder(database: Database): Promise<number> {
  const { rows } = await database.query<{ n: number }>(
    `select count(pg_terminate_backend(pid))::int as n from pg_locks
     where locktype = 'advisory' and objid = $1 and pid <> pg_backend_pid()
       and database = (select oid from pg_database where datname = current_database())`,
    [BOT_LEADER_LOCK],
  );
  return rows[0]?.n ?? 0;
}
