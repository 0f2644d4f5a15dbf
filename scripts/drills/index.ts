#!/usr/bin/env node
/**
 * Reliability drills, long form: `npm run build && node dist/scripts/drills/index.js`.
 *
 *   --engine pglite|postgres   the store for drills 1 and 2 (default: both when DRILL_DATABASE_URL is set)
 *   --restart-cluster          drill 3 restarts the whole local cluster (`pg_ctlcluster 15 main restart`,
 *                              needs the rights to) instead of terminating the product's connections
 *   --only 1,2,3,4             (1 also crashes the embedded database's worker thread, on PGlite;
 *                              4 is the classroom: 40 visitors on one address, arriving over a minute,
 *                              all verified within 5 minutes; real time, about 2 minutes per engine)
 *   --short                    the sizes of the short form (seconds instead of minutes)
 *   --from-sources             the product from its TypeScript sources (tsx), not dist/: run as
 *                              `npx tsx scripts/drills/index.ts …` without a build
 *
 * DRILL_DATABASE_URL (or BENCH_DATABASE_URL) names the PostgreSQL server: a throwaway
 * database is created on it and dropped afterwards. The short form runs in `npm test`
 * (scripts/drills/drills.int.test.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { EngineKind } from '../../src/db/client';
import { drillClassroom } from './classroom';
import {
  drillDatabaseRestart,
  drillDiscordFaults,
  drillKillDuringRaid,
  drillWorkerCrashDuringRaid,
  formatDrills,
  type DrillResult,
} from './drills';

/**
 * Restarts the local cluster without blocking this process: the drill's visitors keep sending
 * requests while PostgreSQL is down, as real visitors would (a synchronous restart paused them).
 */
async function restartLocalCluster(): Promise<void> {
  await promisify(execFile)('pg_ctlcluster', ['15', 'main', 'restart']);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const serverUrl = process.env.DRILL_DATABASE_URL ?? process.env.BENCH_DATABASE_URL;
  const engines: EngineKind[] = value('--engine') ? [value('--engine') as EngineKind] : serverUrl ? ['pglite', 'postgres'] : ['pglite'];
  const only = new Set((value('--only') ?? '1,2,3,4').split(','));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const short = argv.includes('--short');
  const size = short
    ? { raid: 40, perPhase: 6, faultMs: 3_000, settleMs: 60_000, pgVisitors: 10 }
    : { raid: 200, perPhase: 40, faultMs: 30_000, settleMs: 180_000, pgVisitors: 300 };
  const results: DrillResult[] = [];
  const attempt = async (label: string, work: () => Promise<DrillResult>) => {
    log(`drill: ${label}…`);
    try {
      results.push(await work());
    } catch (error) {
      results.push({
        drill: label,
        engine: 'pglite',
        ok: false,
        facts: [`crashed: ${error instanceof Error ? error.message : String(error)}`],
      });
    }
  };

  for (const engine of engines) {
    const base = { engine, serverUrl, entry: argv.includes('--from-sources') ? ('tsx' as const) : ('dist' as const), log };
    // on PostgreSQL the actions a killed process had claimed wait out their 2-minute lease (other processes may be alive)
    const killSettleMs = engine === 'postgres' ? Math.max(size.settleMs, 150_000) : size.settleMs;
    if (only.has('1'))
      await attempt(`kill -9 [${engine}]`, () => drillKillDuringRaid({ ...base, visitors: size.raid, settleMs: killSettleMs }));
    if (only.has('1') && engine === 'pglite')
      await attempt('PGlite worker crash', () => drillWorkerCrashDuringRaid({ ...base, visitors: size.raid, settleMs: killSettleMs }));
    if (only.has('2'))
      await attempt(`faults [${engine}]`, () =>
        drillDiscordFaults({ ...base, visitorsPerPhase: size.perPhase, faultMs: size.faultMs, settleMs: size.settleMs }),
      );
    if (only.has('4'))
      await attempt(`classroom [${engine}]`, () =>
        drillClassroom({ ...base, visitors: 40, arrivalMs: short ? 20_000 : 60_000, limitMs: 5 * 60_000 }),
      );
  }
  if (only.has('3') && serverUrl) {
    const base = { engine: 'postgres' as const, serverUrl, entry: 'dist' as const, log };
    await attempt('PostgreSQL connections terminated', () =>
      drillDatabaseRestart({ ...base, visitors: size.pgVisitors, settleMs: size.settleMs }),
    );
    if (argv.includes('--restart-cluster')) {
      await attempt('PostgreSQL cluster restart', () =>
        drillDatabaseRestart({ ...base, visitors: size.pgVisitors, settleMs: size.settleMs, restartCluster: restartLocalCluster }),
      );
    }
  } else if (only.has('3')) {
    log('drill 3 skipped: set DRILL_DATABASE_URL to a PostgreSQL server');
  }

  process.stdout.write(`\n${formatDrills(results)}\n`);
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`drills failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
});
