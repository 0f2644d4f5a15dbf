#!/usr/bin/env node
// `npm test`: jest for the unit (server, no database), integration, web and end-to-end projects. Integration tests also run
// on the PostgreSQL server when one answers on 127.0.0.1:5432 (or TEST_DATABASE_URL is set);
// end-to-end tests run when Chromium is installed. Both say clearly when they are skipped.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const e2eOnly = args.includes('--e2e');
// rewrites scripts/jest/durations.json (the sequencer's order on a clone with no jest cache) from this run
const recordDurations = args.includes('--record-durations');
const passthrough = args.filter((a) => a !== '--e2e' && a !== '--record-durations');

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(800, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const env = { ...process.env };
if (!env.TEST_DATABASE_URL && (await reachable('127.0.0.1', 5432))) env.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
console.log(
  env.TEST_DATABASE_URL
    ? `Integration tests run on PGlite and on PostgreSQL (${new URL(env.TEST_DATABASE_URL).host}).`
    : 'PostgreSQL is not reachable on 127.0.0.1:5432: integration tests run on PGlite only (set TEST_DATABASE_URL to include a server).',
);

const chromium = env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
const projects = e2eOnly ? ['e2e'] : ['unit', 'integration', 'web'];
// the PostgreSQL half of the integration files is its own project (src/test-support/engine-pass.ts)
if (!e2eOnly && env.TEST_DATABASE_URL) projects.push('integration-postgres');
if (chromium) {
  env.CHROMIUM_PATH = chromium;
  if (!e2eOnly) projects.push('e2e');
  console.log(`End-to-end tests drive ${chromium}.`);
} else {
  console.log('Chromium is not installed: end-to-end tests are SKIPPED (apt-get install chromium to run them).');
  if (e2eOnly) process.exit(1);
}
if (projects.includes('e2e')) {
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/ensure-build.mjs')], { cwd: root, stdio: 'inherit', env });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Jest's default is one worker per core but one, a single worker on a 2-core machine, which leaves a core idle
// while a test waits on PostgreSQL, a child process, Chromium or a rate-limit window. One more worker than cores
// keeps both busy; each worker holding a PGlite database needs about 1.5 GB.
const byMemory = Math.max(1, Math.floor(os.totalmem() / (1.5 * 1024 ** 3)));
const workers = Math.min(os.availableParallelism() + 1, byMemory);
const workerArgs = passthrough.some((a) => a.startsWith('--maxWorkers') || a === '-w' || a === '--runInBand' || a === '-i')
  ? []
  : [`--maxWorkers=${workers}`];

const report = path.join(os.tmpdir(), `gatekeeper-jest-${process.pid}.json`);
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const result = spawnSync(
  process.execPath,
  [jest, '--selectProjects', ...projects, ...workerArgs, '--json', `--outputFile=${report}`, ...passthrough],
  {
    cwd: root,
    stdio: 'inherit',
    env,
  },
);
try {
  const summary = JSON.parse(fs.readFileSync(report, 'utf8'));
  const seconds = Math.round((Date.now() - summary.startTime) / 1000);
  console.log(
    `jest: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed, ${summary.numPendingTests} skipped in ${Math.floor(seconds / 60)} min ${seconds % 60} s (${workerArgs[0] ?? 'workers as given'})`,
  );
  if (recordDurations) writeDurations(summary);
  fs.rmSync(report, { force: true });
} catch {
  // jest could not write its report (it crashed): its exit code says enough
}
process.exit(result.status ?? 1);

/** Each file's time in this run, in seconds, over what durations.json had (a file in two projects: the longer). */
function writeDurations(summary) {
  const file = path.join(root, 'scripts', 'jest', 'durations.json');
  const durations = JSON.parse(fs.readFileSync(file, 'utf8'));
  const ran = {};
  for (const result of summary.testResults) {
    const name = path.relative(root, result.name).split(path.sep).join('/');
    ran[name] = Math.max(ran[name] ?? 0, Math.round((result.endTime - result.startTime) / 100) / 10);
  }
  const merged = Object.fromEntries(
    Object.entries({ ...durations, ...ran })
      .filter(([name]) => fs.existsSync(path.join(root, name))) // a deleted file's time goes with it
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  fs.writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
  console.log(`scripts/jest/durations.json: ${Object.keys(ran).length} files' times recorded`);
}
