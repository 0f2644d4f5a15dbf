import PgBoss from 'pg-boss';
import type { Database } from '../db/client';
import type { Logger } from '../logger';

export interface JobDefinition {
  name: string;
  /** cron expression (UTC), or undefined for on-demand jobs */
  cron?: string;
  handler: () => Promise<unknown>;
}

/**
 * pg-boss on the product's own connection: PGlite through its executeSql adapter,
 * PostgreSQL through the pool. Cron jobs run once per tick across all processes
 * (pg-boss's own locking), so `jobs` can run in many processes.
 */
export async function startScheduler(deps: { database: Database; logger: Logger; jobs: JobDefinition[] }) {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values: unknown[]) => deps.database.executeSql(text, values) },
    schema: 'pgboss',
    supervise: true,
    schedule: true,
    migrate: true,
  });
  boss.on('error', (error: Error) => deps.logger.error({ err: error }, 'job scheduler error'));
  await boss.start();
  for (const job of deps.jobs) {
    await boss.createQueue(job.name, { name: job.name, policy: 'singleton', retryLimit: 2, retryDelay: 60 });
    if (job.cron) await boss.schedule(job.name, job.cron, undefined, { tz: 'UTC' });
    await boss.work(job.name, { pollingIntervalSeconds: 2 }, async () => {
      const started = Date.now();
      const result = await job.handler();
      deps.logger.info({ job: job.name, ms: Date.now() - started, result }, 'job finished');
    });
  }
  return {
    boss,
    /** queue a run now (e.g. the first purge after start-up) */
    runNow: (name: string) => boss.send(name, {}, { singletonKey: name }),
    stop: () => boss.stop({ graceful: true, wait: true, timeout: 10_000 }),
  };
}

export type Scheduler = Awaited<ReturnType<typeof startScheduler>>;
