import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { createManualClock } from '../clock';
import type { Database } from '../db/client';
import { parseEnv } from '../env';
import { silentLogger } from '../logger';
import type { ServerContext } from '../http/compose';

/** A server context for tests: real database, test env, silent logs, a clock tests can move. */
export function createTestContext(database: Database, env: Record<string, string> = {}) {
  const clock = createManualClock(new Date());
  const ctx: ServerContext = {
    env: parseEnv({ NODE_ENV: 'test', DATA_DIR: path.join(os.tmpdir(), 'gatekeeper-test'), ...env }),
    database,
    logger: silentLogger,
    clock,
    secrets: {
      sessionKeys: [crypto.randomBytes(32).toString('hex')],
      ipHashKey: crypto.randomBytes(32),
      outboxKey: crypto.randomBytes(32),
    },
  };
  return { ctx, clock };
}
