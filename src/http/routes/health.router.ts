import express, { type Router } from 'express';
import type { Database } from '../../db/client';
import { appliedMigrationCount, expectedMigrationCount } from '../../db/migrate';
import type { SetupReport } from '../../discord/bot-setup-monitor';

/** /healthz: the process is up. /readyz: the database answers and every migration is applied. */
export function healthRouter(database: Database): Router {
  const router = express.Router();
  const expected = expectedMigrationCount();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    try {
      const applied = await appliedMigrationCount(database);
      if (applied < expected) {
        res.status(503).json({ status: 'migrating', error: `Database migrations pending (${applied}/${expected})` });
        return;
      }
      res.json({ status: 'ready', database: database.kind, migrations: applied });
    } catch {
      res.status(503).json({ status: 'unavailable', error: 'Database unreachable' });
    }
  });
  return router;
}

/**
 * /healthz/discord: the bot's permission self-check for operators. 200 with
 * `status: "ok"` when nothing is missing, 503 with each problem and its fix otherwise.
 */
export function discordHealthRouter(discordSetup: { current(): Promise<SetupReport> }): Router {
  const router = express.Router();
  router.get('/healthz/discord', async (_req, res) => {
    const report = await discordSetup.current();
    const status = report.error ? 'unknown' : report.problems.length > 0 ? 'misconfigured' : 'ok';
    res.status(status === 'ok' ? 200 : 503).json({ status, checkedAt: report.checkedAt, problems: report.problems, ...(report.error ? { error: report.error } : {}) });
  });
  return router;
}
