import { itOn, postgresTestUrl } from '../../src/test-support/engine-pass';
import {
  drillDatabaseRestart,
  drillDiscordFaults,
  drillKillDuringRaid,
  drillWorkerCrashDuringRaid,
  formatDrills,
  type DrillResult,
} from './drills';

/**
 * The reliability drills in their short form, in `npm test`: the product runs
 * from its TypeScript sources as a child process, the Discord and proxycheck emulators in
 * this process. Minutes-long faults and the PostgreSQL cluster restart are the long form:
 * `node dist/scripts/drills/index.js [--restart-cluster]`.
 */

jest.setTimeout(120_000);

const serverUrl = postgresTestUrl();

function expectPassed(result: DrillResult) {
  // on failure the received value is the drill's report: what it saw, fact by fact
  expect(result.ok ? 'passed' : formatDrills([result])).toBe('passed');
}

describe('reliability drills (short form)', () => {
  itOn('pglite')(
    'kill -9 mid-raid: every verification that reached /rules is stored and its Discord actions complete after the restart [pglite]',
    async () => {
      expectPassed(await drillKillDuringRaid({ engine: 'pglite', entry: 'tsx', visitors: 30, settleMs: 30_000 }));
    },
  );

  itOn('pglite')(
    'PGlite worker crash mid-raid: the product exits non-zero, every verification that reached /rules is stored and completes after the restart [pglite]',
    async () => {
      expectPassed(await drillWorkerCrashDuringRaid({ engine: 'pglite', entry: 'tsx', visitors: 30, settleMs: 30_000 }));
    },
  );

  itOn('pglite')(
    'Discord 500s and hangs, proxycheck down: no visitor sees a 5xx, queued actions complete afterwards [pglite]',
    async () => {
      expectPassed(await drillDiscordFaults({ engine: 'pglite', entry: 'tsx', visitorsPerPhase: 4, faultMs: 2_000, settleMs: 40_000 }));
    },
  );

  itOn('postgres')('PostgreSQL connections terminated while serving: the product recovers without a restart [postgres]', async () => {
    expectPassed(await drillDatabaseRestart({ engine: 'postgres', serverUrl: serverUrl!, entry: 'tsx', visitors: 8, settleMs: 30_000 }));
  });
});
