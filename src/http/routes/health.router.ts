import express, { type Router } from 'express';
import type { Database } from '../../db/client';
import { appliedMigrationCount, expectedMigrationCount } from '../../db/migrate';

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
