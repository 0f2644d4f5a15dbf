import type { Clock } from '../clock';
import type { Database } from '../db/client';
import { verifyAuditChain } from '../modules/audit';
import { ALT_RESCORE_JOB, rescoreAltLinks } from '../modules/alts';
import { runDailyBackup } from '../modules/backup';
import { purgeExpired } from '../modules/retention';
import type { OutboxPort } from '../modules/outbox';
import type { JobDefinition } from './scheduler';

export const RETENTION_JOB = 'retention-purge';
export const AUDIT_VERIFY_JOB = 'audit-verify';
export const BACKUP_JOB = 'daily-backup';
export { ALT_RESCORE_JOB };
/** batches of alt links one hourly run re-scores at most (the cursor keeps the place for the next run) */
export const ALT_RESCORE_BATCHES_PER_RUN = 50;
export const DISCORD_PAUSE_JOB = 'lockdown-discord-pause';
/** How often the lockdown's pause in Discord is looked at (asked again only once the last ask is old enough). */
export const DISCORD_PAUSE_CHECK_MINUTES = 15;

/** The scheduled jobs of the `jobs` role. */
export function scheduledJobs(deps: {
  database: Database;
  clock: Clock;
  retentionDays: number;
  /** where the retention purge and alt re-scoring queue Linked Roles connection clears and updates */
  outbox?: OutboxPort;
  dailyBackup?: { dataDir: string; keep: number };
  /** renews the lockdown's pause in Discord before it runs out (admission service) */
  renewDiscordPause?: () => Promise<unknown>;
}): JobDefinition[] {
  const { renewDiscordPause } = deps;
  const { dailyBackup } = deps;
  return [
    // Discord takes a pause at most 24 hours ahead: while the lockdown holds it is asked for again every few hours
    ...(renewDiscordPause
      ? [{ name: DISCORD_PAUSE_JOB, cron: `*/${DISCORD_PAUSE_CHECK_MINUTES} * * * *`, handler: renewDiscordPause }]
      : []),
    // embedded database only: PostgreSQL is backed up with pg_dump by whoever runs the server
    ...(dailyBackup && deps.database.kind === 'pglite'
      ? [
          {
            name: BACKUP_JOB,
            cron: '30 3 * * *',
            handler: () =>
              runDailyBackup({ database: deps.database, dataDir: dailyBackup.dataDir, keep: dailyBackup.keep, now: deps.clock.now() }),
          },
        ]
      : []),
    {
      name: RETENTION_JOB,
      cron: '0 * * * *', // hourly
      handler: () => purgeExpired(deps),
    },
    {
      // the audit page verifies only what was sealed since its checkpoint: this walks the whole chain
      name: AUDIT_VERIFY_JOB,
      cron: '17 * * * *', // hourly
      handler: () => verifyAuditChain(deps.database.db),
    },
    {
      // links re-scored with today's anonymity counts (alt-rescoring.ts), a bounded part of the pass per run
      name: ALT_RESCORE_JOB,
      cron: '41 * * * *', // hourly
      handler: () => rescoreAltLinks(deps, { maxBatches: ALT_RESCORE_BATCHES_PER_RUN }),
    },
  ];
}
