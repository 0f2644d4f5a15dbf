import type { Clock } from '../clock';
import type { Database } from '../db/client';
import { verifyAuditChain } from '../modules/audit/audit.repository';
import { purgeExpired } from '../modules/retention/retention.service';
import type { JobDefinition } from './scheduler';

export const RETENTION_JOB = 'retention-purge';
export const AUDIT_VERIFY_JOB = 'audit-verify';

/** The scheduled jobs of the `jobs` role. */
export function scheduledJobs(deps: { database: Database; clock: Clock; retentionDays: number }): JobDefinition[] {
  return [
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
  ];
}
