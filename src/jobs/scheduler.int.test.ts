import { createManualClock } from '../clock';
import { silentLogger } from '../logger';
import { describeEngines, resetDatabase } from '../test-support/database';
import { buildMember } from '../test-support/factories';
import { ALT_RESCORE_JOB, AUDIT_VERIFY_JOB, RETENTION_JOB, scheduledJobs } from './jobs';
import { startScheduler, type Scheduler } from './scheduler';

jest.setTimeout(60_000);

describeEngines('job scheduler', (getDatabase) => {
  let scheduler: Scheduler | undefined;
  afterEach(async () => {
    await scheduler?.stop();
    scheduler = undefined;
  });

  it('schedules the hourly retention purge and runs it through pg-boss', async () => {
    const database = getDatabase();
    await resetDatabase(database);
    const clock = createManualClock(new Date('2026-06-01T00:00:00Z'));
    await buildMember(database.db, { lastSeenAt: new Date('2026-04-01T00:00:00Z') });
    const runs: string[] = [];
    scheduler = await startScheduler({
      database,
      logger: silentLogger,
      jobs: scheduledJobs({ database, clock, retentionDays: 30 }),
      onRun: (job, result) => runs.push(`${job} ${result}`),
    });

    const schedules = await scheduler.boss.getSchedules();
    expect(schedules).toHaveLength(3);
    expect(schedules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: RETENTION_JOB, cron: '0 * * * *' }),
        expect.objectContaining({ name: AUDIT_VERIFY_JOB, cron: '17 * * * *' }),
        expect.objectContaining({ name: ALT_RESCORE_JOB, cron: '41 * * * *' }),
      ]),
    );

    await scheduler.runNow(RETENTION_JOB);
    const deadline = Date.now() + 20_000;
    let remaining = 1;
    while (Date.now() < deadline) {
      const { rows } = await database.query<{ n: number }>('select count(*)::int as n from members');
      remaining = rows[0]!.n;
      if (remaining === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(remaining).toBe(0);
    // the run's end is reported once the purge returned
    while (runs.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(runs).toEqual([`${RETENTION_JOB} finished`]);

    // the alt re-scoring pass runs through the same scheduler (nothing to re-score here)
    await scheduler.runNow(ALT_RESCORE_JOB);
    while (runs.length < 2 && Date.now() < deadline + 20_000) await new Promise((r) => setTimeout(r, 100));
    expect(runs).toEqual([`${RETENTION_JOB} finished`, `${ALT_RESCORE_JOB} finished`]);
  });

  it('reports a run that failed', async () => {
    const database = getDatabase();
    await resetDatabase(database);
    const runs: string[] = [];
    scheduler = await startScheduler({
      database,
      logger: silentLogger,
      jobs: [{ name: 'failing-probe', handler: async () => Promise.reject(new Error('the job failed')) }],
      onRun: (job, result) => runs.push(`${job} ${result}`),
    });
    await scheduler.runNow('failing-probe');
    const deadline = Date.now() + 20_000;
    while (runs.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(runs[0]).toBe('failing-probe failed');
  });
});
