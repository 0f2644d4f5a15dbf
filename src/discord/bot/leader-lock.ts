import type { PoolClient } from 'pg';
import type { Database } from '../../db/client';

/** the advisory lock's key; a lock is the database's own, so each database has one bot leader */
export const BOT_LEADER_LOCK = 72_611_003;

/**
 * Exactly one bot across processes: the holder of a PostgreSQL session advisory lock.
 * The lock lives on a dedicated connection; if that connection dies (the process or the
 * server went away) the lock is released and another process takes over. PGlite is
 * single-process (the data folder is locked), so the one process always leads.
 */
export function createLeaderLock(database: Database) {
  /**
   * The connection holding the lock, and the error listener put on it: taken off when the
   * connection goes back to the pool, which hands it to others.
   */
  let held: { client: PoolClient; onError: () => void } | undefined;
  return {
    async tryAcquire(onLost: () => void): Promise<boolean> {
      if (database.kind === 'pglite' || !database.pool) return true;
      if (held) return true;
      const candidate = await database.pool.connect();
      try {
        const { rows } = await candidate.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [BOT_LEADER_LOCK]);
        if (!rows[0]?.ok) {
          candidate.release();
          return false;
        }
      } catch (error) {
        candidate.release(error as Error);
        throw error;
      }
      const term = {
        client: candidate,
        onError: () => {
          if (held !== term) return;
          held = undefined;
          candidate.release(true);
          onLost();
        },
      };
      held = term;
      candidate.on('error', term.onError);
      return true;
    },
    async release(): Promise<void> {
      const term = held;
      held = undefined;
      if (!term) return;
      // each term as leader would otherwise leave one listener on a pooled connection (Node warns at eleven)
      term.client.off('error', term.onError);
      try {
        await term.client.query('select pg_advisory_unlock($1)', [BOT_LEADER_LOCK]);
        term.client.release();
      } catch {
        term.client.release(true);
      }
    },
    /** whether this process holds the lock (checked against the server) */
    async stillHeld(): Promise<boolean> {
      if (database.kind === 'pglite') return true;
      if (!held) return false;
      try {
        await held.client.query('select 1');
        return true;
      } catch {
        return false;
      }
    },
  };
}
