import type { Clock } from '../clock';
import type { Database } from '../db/client';
import { purgeExpired } from '../modules/retention/retention.service';
import type { JobDefinition } from './scheduler';

export const RETENTION_JOB = 'retention-purge';

/** The scheduled jobs of the `jobs` role. */
export function scheduledJobs(deps: { database: Database; clock: Clock; retentionDays: number }): JobDefinition[] {
  return [
    {
      name: RETENTION_JOB,
      cron: '0 * * * *', // hourly
      handler: () => purgeExpired(deps),
    },
  ];
}
