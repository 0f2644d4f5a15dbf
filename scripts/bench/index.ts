#!/usr/bin/env node
/**
 * `npm run bench`: seeds data with the generator, runs the benchmark figures against
 * PGlite and (when BENCH_DATABASE_URL is set) against a throwaway database on that
 * PostgreSQL server, and prints ONE table: figure, engine, value, target, pass/fail.
 *
 *   npm run bench                                   every figure, PGlite only
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/ npm run bench
 *   npm run bench -- --only P1,P3 --quick           some figures, small sizes (a smoke run)
 *   npm run bench -- --only P9 --members 100000     the community store at another size
 *   npm run bench -- --profile                      V8 CPU profile of the product during P2/P4
 *   npm run bench -- --only P2 --web-processes 1,2  P2 once per WEB_CONCURRENCY (default: 2 on PostgreSQL, 1 on PGlite)
 *   npm run bench -- --only P10 --spray-visitors 500  P10 (visitors during a password spray) with 500 visitors
 *   npm run bench -- --only P4 --raid-visitors 200 --raid-existing 0.8
 *                                                   P4 at another size, or another share of visitors already in the guild
 *
 * Sizes: P1 1M attempts, P3 1M members (one seeded store per engine serves P1, P9, P3,
 * then P2 writes into it), P9 the statistics page's queries on that store, P4 2,000 visitors on a fresh store, P7 100k members, P8 a labelled
 * population of 25,000 people (~30k accounts) whose last 3,000 verifications are scored
 * on a fresh store. Traffic goes
 * to 127.0.0.1 only: the product runs as a child process, Discord and proxycheck.io are
 * the emulators in this process.
 */
import os from 'node:os';
import type { EngineKind } from '../../src/db/client';
import { createStore, enginesFor, type BenchStore } from './engines';
import { measureAltLookup } from './p1-alt-lookup';
import { describeMachineSpeed, measureMachineSpeed } from './machine-speed';
import { measureFlows } from './p2-flows';
import { measureDashboard, seedBenchStaff } from './p3-dashboard';
import { measureRaid } from './p4-raid';
import { measureBundle } from './p5-bundle';
import { measureFingerprint } from './p6-fingerprint';
import { measureIdleRss } from './p7-rss';
import { measureVerdictQuality } from './p8-verdicts';
import { measureStatistics } from './p9-statistics';
import { measureSpray, SPRAYS, type SprayKind } from './p10-spray';
import { summarizeProfiles } from './profile';
import { formatTable, writeResultsFile, type FigureResult } from './results';
import { measureAltRescore } from './p11-alt-rescore';
import { joinSinceVacuum, seedCommunity } from './seed-data';

/** members P3's community gained since its last VACUUM: one raid of P4's size */
const P3_JOINS_SINCE_VACUUM = 2000;

const FIGURES = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7', 'P8', 'P9', 'P10', 'P11'] as const;
type Figure = (typeof FIGURES)[number];

function parseArgs(argv: string[]) {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const only = (value('--only') ?? process.env.BENCH_ONLY ?? FIGURES.join(','))
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter((s): s is Figure => (FIGURES as readonly string[]).includes(s));
  const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const engines = (value('--engines') ?? '').split(',').filter(Boolean) as EngineKind[];
  const webProcesses = (value('--web-processes') ?? '')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n >= 1 && n <= 64);
  const existing = value('--raid-existing');
  const raidExisting = existing === undefined ? undefined : Number(existing);
  if (raidExisting !== undefined && !(raidExisting >= 0 && raidExisting <= 1))
    throw new Error('--raid-existing takes a share between 0 and 1 (e.g. 0.8)');
  const raidVisitors = value('--raid-visitors') === undefined ? undefined : Number(value('--raid-visitors'));
  if (raidVisitors !== undefined && !(Number.isInteger(raidVisitors) && raidVisitors >= 20))
    throw new Error('--raid-visitors takes a whole number ≥ 20');
  // --members N: the community store's size (members and attempts) instead of the default
  const members = Number(value('--members') ?? 0);
  // --spray-visitors N: P10's concurrent visitors instead of the default
  const sprayVisitors = value('--spray-visitors') === undefined ? undefined : Number(value('--spray-visitors'));
  if (sprayVisitors !== undefined && !(Number.isInteger(sprayVisitors) && sprayVisitors >= 1))
    throw new Error('--spray-visitors takes a whole number ≥ 1');
  return {
    only: new Set(only),
    quick,
    members: Number.isInteger(members) && members > 0 ? members : null,
    profile: argv.includes('--profile'),
    engines,
    webProcesses,
    raidExisting,
    raidVisitors,
    sprayVisitors,
  };
}

const log = (line: string) => process.stderr.write(`${line}\n`);

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.cpus().length} × ${cpu.trim()}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const engines = args.engines.length ? args.engines : enginesFor(serverUrl);
  const size = args.quick
    ? { community: { members: 20_000, attempts: 20_000 }, raid: 200, p2Seconds: 5, p7Members: 5_000, p8: { people: 5_000, scored: 1_000 } }
    : {
        community: { members: 1_000_000, attempts: 1_000_000 },
        raid: 2_000,
        p2Seconds: 20,
        p7Members: 100_000,
        p8: { people: 25_000, scored: 3_000 },
      };
  if (args.members) size.community = { members: args.members, attempts: args.members };
  const results: FigureResult[] = [];
  const profiles: string[] = [];
  const profileDir = (label: string) => (args.profile ? `${os.tmpdir()}/gk-profile-${label}-${Date.now()}` : undefined);
  const run = async (figure: Figure, engine: string, work: () => Promise<FigureResult | FigureResult[]>) => {
    log(`${figure} on ${engine}…`);
    const started = Date.now();
    try {
      const out = await work();
      results.push(...(Array.isArray(out) ? out : [out]));
    } catch (error) {
      log(`${figure} on ${engine} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      results.push({
        figure,
        engine: engine as FigureResult['engine'],
        value: 'error',
        target: '-',
        pass: false,
        note: `${figure} ${engine}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      });
    }
    log(`${figure} on ${engine} done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  };

  log(`Gatekeeper bench on ${machine()}`);
  const speedAtStart = measureMachineSpeed();
  log(describeMachineSpeed(speedAtStart));
  log(`engines: ${engines.join(', ')}; figures: ${[...args.only].join(', ')}${args.quick ? ' (quick sizes)' : ''}`);

  for (const engine of engines) {
    const needsCommunity = ['P1', 'P2', 'P3', 'P9', 'P11'].some((f) => args.only.has(f as Figure));
    if (needsCommunity) {
      let store: BenchStore | undefined;
      try {
        store = await createStore(engine, { serverUrl, label: 'community' });
        log(
          `seeding ${size.community.members.toLocaleString('en')} members and ${size.community.attempts.toLocaleString('en')} attempts on ${engine}…`,
        );
        const database = await store.open();
        try {
          const took = await seedCommunity(database, size.community, log);
          await seedBenchStaff(database);
          log(`  seeded in ${(took / 1000).toFixed(0)} s`);
          if (args.only.has('P1')) {
            await run('P1', engine, () =>
              measureAltLookup(database, { samples: args.quick ? 300 : 2000, warmup: 200, attempts: size.community.attempts }),
            );
          }
          if (args.only.has('P9')) {
            await run('P9', engine, () =>
              measureStatistics(database, { samples: args.quick ? 20 : 100, warmup: 5, members: size.community.members }),
            );
          }
          if (args.only.has('P11')) {
            // after P1 and P9, which read the store as seeded: P11 makes links and rewrites them
            await run('P11', engine, () =>
              measureAltRescore(database, { batches: args.quick ? 5 : 25, attempts: size.community.attempts }),
            );
          }
          if (args.only.has('P3')) {
            // P3 searches a community some of whose members joined since the last VACUUM
            const joinsStarted = Date.now();
            await joinSinceVacuum(database, size.community, P3_JOINS_SINCE_VACUUM);
            log(
              `  ${P3_JOINS_SINCE_VACUUM.toLocaleString('en')} members joined since the last VACUUM (${((Date.now() - joinsStarted) / 1000).toFixed(0)} s)`,
            );
          }
        } finally {
          await database.close();
        }
        const community = store;
        if (args.only.has('P3')) {
          await run('P3', engine, () =>
            measureDashboard(community, {
              members: size.community.members,
              joinsSinceVacuum: P3_JOINS_SINCE_VACUUM,
              connections: 4,
              amount: args.quick ? 100 : 400,
            }),
          );
        }
        if (args.only.has('P2')) {
          // several processes need a PostgreSQL server (the product runs one process on PGlite)
          const counts = engine !== 'postgres' ? [1] : args.webProcesses.length ? args.webProcesses : [2];
          for (const webProcesses of counts) {
            const dir = profileDir(`p2-${engine}-${webProcesses}`);
            await run('P2', engine, () =>
              measureFlows(community, {
                concurrency: 32,
                durationMs: size.p2Seconds * 1000,
                serialFlows: args.quick ? 50 : 200,
                cpuProfileDir: dir,
                webProcesses,
              }),
            );
            if (dir) profiles.push(summarizeProfiles(dir, `P2 ${engine} WEB_CONCURRENCY=${webProcesses}`));
          }
        }
      } finally {
        await store?.dispose().catch((error: unknown) => log(`could not remove the ${engine} store: ${String(error)}`));
      }
    }
    if (args.only.has('P4')) {
      const store = await createStore(engine, { serverUrl, label: 'raid' });
      try {
        const dir = profileDir(`p4-${engine}`);
        await run('P4', engine, () =>
          measureRaid(store, {
            visitors: args.raidVisitors ?? size.raid,
            existingShare: args.raidExisting,
            concurrency: 64,
            cpuProfileDir: dir,
            secondStore: () => createStore(engine, { serverUrl, label: 'raid2' }),
          }),
        );
        if (dir) profiles.push(summarizeProfiles(dir, `P4 ${engine}`));
      } finally {
        await store.dispose().catch((error: unknown) => log(`could not remove the ${engine} store: ${String(error)}`));
      }
    }
    // each kind of spray on a store of its own: the login throttle's blocks are kept in the database
    for (const spray of args.only.has('P10') ? (Object.keys(SPRAYS) as SprayKind[]) : []) {
      const store = await createStore(engine, { serverUrl, label: 'spray' });
      try {
        const webProcesses = engine === 'postgres' ? (args.webProcesses[0] ?? 2) : 1;
        await run('P10', engine, () =>
          measureSpray(store, {
            visitors: args.sprayVisitors ?? 16,
            phaseMs: args.quick ? 6_000 : 15_000,
            sprayPerSecond: 50,
            webProcesses,
            spray,
          }),
        );
      } finally {
        await store.dispose().catch((error: unknown) => log(`could not remove the ${engine} store: ${String(error)}`));
      }
    }
    if (args.only.has('P8')) {
      const store = await createStore(engine, { serverUrl, label: 'verdicts' });
      try {
        const database = await store.open();
        try {
          await run('P8', engine, async () => (await measureVerdictQuality(database, size.p8, log)).results);
        } finally {
          await database.close();
        }
      } finally {
        await store.dispose().catch((error: unknown) => log(`could not remove the ${engine} store: ${String(error)}`));
      }
    }
  }

  if (args.only.has('P5')) await run('P5', 'n/a', () => measureBundle());
  if (args.only.has('P6') || args.only.has('P7')) {
    const store = await createStore('pglite', { label: 'embedded' });
    try {
      await run('P7', 'pglite', () =>
        measureIdleRss(store, {
          members: size.p7Members,
          idleMs: args.quick ? 10_000 : 30_000,
          afterIdle: args.only.has('P6')
            ? async (url) => void (await run('P6', 'n/a', () => measureFingerprint(url, { reloads: 20 })))
            : undefined,
          report: args.only.has('P7'),
        }),
      );
    } finally {
      await store.dispose();
    }
  }

  const order = (r: FigureResult) =>
    FIGURES.indexOf((/^P\d+/.exec(r.figure)?.[0] ?? '') as Figure) * 10 + (r.engine === 'postgres' ? 1 : 0);
  results.sort((a, b) => order(a) - order(b));
  const speedAtEnd = measureMachineSpeed();
  const report = `Gatekeeper bench — ${new Date().toISOString()} — ${machine()}\nat the start: ${describeMachineSpeed(speedAtStart)}; at the end: ${describeMachineSpeed(speedAtEnd)}\n\n${formatTable(results)}\n${profiles.map((profile) => `\n${profile}\n`).join('')}`;
  process.stdout.write(`\n${report}`);
  process.stdout.write(`\nFigures written to ${writeResultsFile(report)}\n`);
  process.exitCode = results.some((r) => r.pass === false) ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
});
