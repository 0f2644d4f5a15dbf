import express, { type Router } from 'express';
import type { Database } from '../../db/client';
import { appliedMigrationCount, expectedMigrationCount } from '../../db/migrate';
import type { SetupReport } from '../../discord/bot-setup-monitor';
import type { DiscordGuard } from '../../discord/discord-guard';

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
 * `status: "ok"` when nothing is missing, 503 with each problem and its fix otherwise;
 * `token-rejected` (503) while Discord answers 401 to the bot token. With the guard, the
 * answer also carries the token's state and the invalid-request count. /healthz itself
 * stays 200 then: a rejected token makes the service degraded, not dead (visitors can
 * still verify; their Discord actions wait, queued), and a restart would not fix it.
 */
export function discordHealthRouter(
  discordSetup: { current(): Promise<SetupReport> },
  guard?: Pick<DiscordGuard, 'token' | 'invalid' | 'gate'>,
): Router {
  const router = express.Router();
  router.get('/healthz/discord', async (_req, res) => {
    const token = guard?.token.status();
    const report = token?.status === 'rejected' ? undefined : await discordSetup.current();
    const status =
      token?.status === 'rejected' ? 'token-rejected' : report!.error ? 'unknown' : report!.problems.length > 0 ? 'misconfigured' : 'ok';
    const extra = guard ? { token, invalidRequests: { ...guard.invalid.snapshot(), budget: guard.gate.state() } } : {};
    res.status(status === 'ok' ? 200 : 503).json({
      status,
      checkedAt: report?.checkedAt ?? new Date().toISOString(),
      problems: report?.problems ?? [],
      ...(report?.error ? { error: report.error } : {}),
      ...extra,
    });
  });
  return router;
}
