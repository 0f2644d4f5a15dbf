import PgBoss from 'pg-boss';
import type { Database } from '../db/client';
import { retryOnSqlState } from '../db/transaction-retry';
import type { Logger } from '../logger';

export interface JobDefinition {
  name: string;
  /** cron expression (UTC), or undefined for on-demand jobs */
  cron?: string;
  handler: () => Promise<unknown>;
}

/** duplicate key, schema, table or object; deadlock: what processes setting pg-boss up at once meet */
const SET_UP_RACES = new Set(['23505', '42P06', '42P07', '42710', '40P01']);

/**
 * Runs one step of pg-boss's set-up again when another process doing the same step at
 * the same moment made it fail. pg-boss 10 is not safe there: after waiting on its
 * advisory lock, `CREATE SCHEMA IF NOT EXISTS` still sees the catalog from before the
 * wait and hits the duplicate; two `createQueue` calls deadlock attaching partitions.
 * Every step is idempotent once the other process has finished it.
 */
function retrySetUpRace<T>(step: () => Promise<T>, what: string, logger: Logger): Promise<T> {
  return retryOnSqlState(step, {
    states: SET_UP_RACES,
    baseDelayMs: 50,
    onRetry: (attempt, code) =>
      logger.info({ attempt, code, step: what }, 'another process set up the job scheduler at the same time: trying again'),
  });
}

function createBoss(deps: { database: Database; logger: Logger }): PgBoss {
  const boss = new PgBoss({
    db: { executeSql: (text: string, values: unknown[]) => deps.database.executeSql(text, values) },
    schema: 'pgboss',
    supervise: true,
    schedule: true,
    migrate: true,
  });
  boss.on('error', (error: Error) => deps.logger.error({ err: error }, 'job scheduler error'));
  return boss;
}

/**
 * pg-boss on the product's own connection: PGlite through its executeSql adapter,
 * PostgreSQL through the pool. Cron jobs run once per tick across all processes
 * (pg-boss's own locking), so `jobs` can run in many processes.
 */
export async function startScheduler(deps: {
  database: Database;
  logger: Logger;
  jobs: JobDefinition[];
  /** each run's end (metrics: a purge that stopped running shows as a counter that stopped rising) */
  onRun?: (job: string, result: 'finished' | 'failed') => void;
}) {
  // a failed start leaves the instance unusable: each attempt gets a new one (nothing ran yet)
  const boss = await retrySetUpRace(
    async () => {
      const candidate = createBoss(deps);
      await candidate.start();
      return candidate;
    },
    'start',
    deps.logger,
  );
  for (const job of deps.jobs) {
    await retrySetUpRace(
      () => boss.createQueue(job.name, { name: job.name, policy: 'singleton', retryLimit: 2, retryDelay: 60 }),
      'createQueue',
      deps.logger,
    );
    if (job.cron) await retrySetUpRace(() => boss.schedule(job.name, job.cron!, undefined, { tz: 'UTC' }), 'schedule', deps.logger);
    await boss.work(job.name, { pollingIntervalSeconds: 2 }, async () => {
      const started = Date.now();
      let result: unknown;
      try {
        result = await job.handler();
      } catch (error) {
        deps.onRun?.(job.name, 'failed');
        // pg-boss records the failure and retries the run
        throw error;
      }
      deps.onRun?.(job.name, 'finished');
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
