import { keepConnectionsAlive } from './http/keep-alive';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from './clock';
import { openDatabase, type Database } from './db/client';
import { runMigrations } from './db/migrate';
import type { Env } from './env';
import { buildApp, type ServerContext } from './http/compose';
import { connectDiscord, type DiscordConnection } from './discord/discord-connection';
import { setDiscordUserAgentSite } from './discord-user-agent';
import { registerCommands } from './discord/commands/register-commands';
import { createBotRest } from './discord/discord-rest';
import { scheduledJobs, RETENTION_JOB } from './jobs/jobs';
import { startAuditSealer } from './modules/audit';
import { startBackupTrigger } from './modules/backup';
import { prepareSetupCode, type SetupCodeStore, anyStaffExists } from './modules/staff';
import { createServices, type Services } from './services';
import { startScheduler, type Scheduler } from './jobs/scheduler';
import type { Logger } from './logger';
import type { RateLimitOption } from './discord-emulator';
import { loadOrCreateIpHashKey } from './modules/network';
import { loadOrCreateSecret } from './secrets';

export interface GatekeeperHandle {
  /** the site's public address (PUBLIC_URL when set) */
  url: string;
  /** where this process's web server listens (differs from `url` behind a proxy); null without the web role */
  localUrl: string | null;
  ctx: ServerContext;
  services: Services;
  discord: DiscordConnection;
  stop(): Promise<void>;
}

/** Connections waiting to be accepted (Node's default is 511). */
const LISTEN_BACKLOG = 4096;

export interface StartOptions {
  logger: Logger;
  clock?: Clock;
  /** an already open database (tests); closed by its owner */
  database?: Database;
  /** sandbox: the emulator's port (0 = any free port, for tests) */
  emulatorPort?: number;
  /** sandbox: how long the emulator gives the bot to answer an interaction (Discord's 3 s unless a test says otherwise) */
  emulatorAckTimeoutMs?: number;
  /** a setup code store other than DATA_DIR/setup-code.txt (tests) */
  setupCode?: SetupCodeStore;
  bcryptCost?: number;
  /** shows the one-time setup code to the operator (the terminal), never to the logs */
  announceSetupCode?: (code: string, file: string) => void;
  /** how long the audit sealer waits after a nudge (default 20 ms); tests that count a flow's own statements set it long */
  auditSealDebounceMs?: number;
  /**
   * sandbox tests: Discord's limits scaled down, on both sides: the emulator's rate limits and
   * invalid request limit, and the product's own count of invalid answers (same limit and window)
   */
  discordLimits?: { rateLimits?: RateLimitOption; invalidRequests?: { limit: number; windowMs: number } };
}

/** Where the built web app lives (dist/web), from source or from the build. */
export function findWebDist(): string | undefined {
  const candidates = [path.resolve(__dirname, '../dist/web'), path.resolve(__dirname, '../web'), path.resolve(__dirname, '../../dist/web')];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
}

/**
 * Starts the roles named in SERVICES on one process: opens and migrates the database,
 * then web (HTTP), jobs (scheduler) and bot. Returns a handle that stops it cleanly.
 */
export async function startGatekeeper(env: Env, options: StartOptions): Promise<GatekeeperHandle> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const roles = new Set(env.SERVICES);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (error) {
        logger.warn({ err: error }, 'error while stopping');
      }
    }
  };

  try {
    const database =
      options.database ??
      (await openDatabase({
        databaseUrl: env.DATABASE_URL,
        dataDir: env.dataDir,
        poolMax: env.DATABASE_POOL_MAX,
        connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS,
        // one line, not one per attempt: the operator needs to know it is waiting, and for how long at most
        onRetry: (attempt, _delayMs, error) => {
          if (attempt === 1)
            logger.warn(
              { reason: error.message },
              `database not reachable yet, retrying for up to ${env.DATABASE_CONNECT_TIMEOUT_SECONDS} s (DATABASE_CONNECT_TIMEOUT_SECONDS)`,
            );
        },
        crashOnSigusr2: env.DRILL_HOOKS,
        onWorkerCrash: (error) => {
          // every later statement would fail: exit non-zero so the supervisor restarts on a clean start
          logger.fatal({ err: error }, 'the embedded database stopped unexpectedly; exiting');
          process.exit(1);
        },
      }));
    if (!options.database) stops.push(() => database.close());
    if (database.kind === 'pglite' && !options.database) {
      // `npm run backup` asks this process, the only one that may read the open database
      const trigger = startBackupTrigger({ database, dataDir: env.dataDir, logger });
      stops.push(async () => trigger.stop());
    }
    await runMigrations(database);
    logger.info({ engine: database.kind, folder: database.kind === 'pglite' ? path.join(env.dataDir, 'db') : undefined }, 'database ready');
    // every role appends audit rows: each process seals them after commit; the jobs role
    // also on a timer, for rows no nudge saw committed (and those left by a crash)
    const auditSealer = startAuditSealer({
      database,
      logger,
      debounceMs: options.auditSealDebounceMs,
      intervalMs: roles.has('jobs') ? 5_000 : undefined,
    });
    stops.push(() => auditSealer.stop());

    const ctx: ServerContext = {
      env,
      database,
      logger,
      clock,
      secrets: {
        sessionKeys: [loadOrCreateSecret(env.dataDir, 'session.key', env.SESSION_SECRET).toString('hex')],
        ipHashKey: loadOrCreateIpHashKey(env.dataDir, env.IP_HASH_KEY),
        outboxKey: loadOrCreateSecret(env.dataDir, 'outbox.key'),
      },
      webDist: findWebDist(),
      allowedOrigins: env.DEV_ALLOWED_ORIGINS,
    };

    const staffExists = await anyStaffExists(database.db);
    const setupCode =
      options.setupCode ?? prepareSetupCode({ dataDir: env.dataDir, staffExists, logger, announce: options.announceSetupCode });

    // the site's public address is known once the web server listens; services read it lazily
    let url = env.PUBLIC_URL ?? `http://localhost:${env.PORT}`;
    let server: http.Server | undefined;
    let localUrl: string | null = null;
    if (roles.has('web')) {
      // until the app is mounted (a moment), answer 503 rather than hang
      server = http.createServer((_req, res) => {
        res.statusCode = 503;
        res.end();
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        // a crowd opens hundreds of connections at once: a short accept queue drops the rest, and each such
        // browser waits out TCP's retry (1 s, 3 s, 7 s …); the kernel caps this at net.core.somaxconn
        server!.listen({ port: env.PORT, host: env.HOST, backlog: LISTEN_BACKLOG }, () => resolve());
      });
      const address = server.address() as AddressInfo;
      const shownHost = env.HOST === '0.0.0.0' || env.HOST === '::' ? 'localhost' : env.HOST;
      localUrl = `http://${shownHost}:${address.port}`;
      url = env.PUBLIC_URL ?? localUrl;
    }

    // every Discord request names this installation (Discord's User-Agent asks for a URL)
    setDiscordUserAgentSite(env.PUBLIC_URL ?? url);
    const limits = options.discordLimits;
    const discord = await connectDiscord(env, logger, {
      emulatorPort: options.emulatorPort,
      redirectUri: `${url}/oauth/callback`,
      interactionAckTimeoutMs: options.emulatorAckTimeoutMs,
      emulatorLimits: limits ? { rateLimits: limits.rateLimits, invalidRequestLimit: limits.invalidRequests } : undefined,
    });
    stops.push(() => discord.close());
    if (discord.emulator) ctx.sandboxDiscordUrl = discord.emulator.url;
    // the emulator accepts the printed address's callback only: other loopback names are sent to it first
    if (discord.emulator && !env.PUBLIC_URL && localUrl) ctx.canonicalLoopbackOrigin = localUrl;

    const services = createServices(ctx, discord, {
      setupCode,
      websiteUrl: url,
      bcryptCost: options.bcryptCost,
      invalidRequestLimit: limits?.invalidRequests,
    });
    await services.settings.refresh();
    // Linked Roles' metadata, while the setting is on (a failure marks them unavailable; it never stops the start)
    void services.linkedRoles.ensure();

    if (roles.has('jobs')) {
      const scheduler: Scheduler = await startScheduler({
        database,
        logger,
        onRun: (job, result) => services.metrics.jobs.inc({ job, result }),
        jobs: scheduledJobs({
          database,
          clock,
          outbox: services.outbox,
          renewDiscordPause: () => services.admission.renewDiscordPause(),
          get retentionDays() {
            return services.settings.snapshot().retentionDays;
          },
          dailyBackup: env.BACKUP_DAILY ? { dataDir: env.dataDir, keep: env.BACKUP_KEEP } : undefined,
        }),
      });
      stops.push(() => scheduler.stop());
      await scheduler.runNow(RETENTION_JOB);
      if (database.kind === 'pglite') {
        // one process per data folder: actions claimed before a crash resume now, not after their lease
        const released = await services.outbox.releaseAllLeases(database.db);
        if (released > 0) logger.warn({ released }, 'resuming Discord actions interrupted by the previous shutdown');
      }
      services.outboxWorker.start();
      stops.push(() => services.outboxWorker.stop());
    }

    if (roles.has('bot')) {
      if (discord.sandbox) {
        // the emulator starts empty of commands: register them so the sandbox shows them
        await registerCommands(createBotRest({ apiBase: discord.apiBase, botToken: discord.botToken, guard: services.guard }), {
          applicationId: discord.clientId,
          guildId: discord.guildId,
        }).catch((error: unknown) => logger.warn({ err: error }, 'could not register slash commands in the sandbox'));
      }
      services.bot.start();
      stops.push(() => services.bot.stop());
    }

    if (server) {
      const app = buildApp(ctx, services.routers, { serverIdentity: services.serverIdentity });
      server.removeAllListeners('request');
      server.on('request', app);
      const listening = server;
      keepConnectionsAlive(listening);
      stops.push(
        () =>
          new Promise<void>((resolve) => {
            // stop accepting, let in-flight requests finish, then drop idle keep-alives
            listening.close(() => resolve());
            listening.closeIdleConnections();
            setTimeout(() => {
              listening.closeAllConnections();
              resolve();
            }, 10_000).unref();
          }),
      );
    }

    return { url, localUrl, ctx, services, discord, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
