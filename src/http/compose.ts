import type { Express, Router } from 'express';
import type { Clock } from '../clock';
import type { Database } from '../db/client';
import type { Env } from '../env';
import type { Logger } from '../logger';
import { createApp } from './app';
import type { PublicConfig } from './routes/config.router';
import { settingsFor } from '../modules/settings';
import type { ServerIdentity } from '../discord/bot-setup-monitor';

/** Everything a request handler may need, built once at boot (or per test). */
export interface ServerContext {
  env: Env;
  database: Database;
  logger: Logger;
  clock: Clock;
  secrets: {
    /** cookie-session signing keys */
    sessionKeys: string[];
    /** HMAC key for IP hashing (never stored in the database) */
    ipHashKey: Buffer;
    /** AES key that seals the few secrets the outbox must hold for a while */
    outboxKey: Buffer;
  };
  /** in sandbox mode: origin of the in-process Discord emulator */
  sandboxDiscordUrl?: string;
  /** in sandbox mode without PUBLIC_URL: the printed local address (its callback is the one the emulator accepts) */
  canonicalLoopbackOrigin?: string;
  /** origins besides our own allowed to make state-changing calls (Vite dev server) */
  allowedOrigins?: string[];
  webDist?: string;
}

/** The feature routers, in mount order. Each feature adds itself here. */
export interface FeatureRouters {
  api: Router[];
  root: Router[];
}

export function publicConfigOf(ctx: ServerContext): PublicConfig {
  return {
    // the owner's stored value, else RETENTION_DAYS
    dataRetentionDays: settingsFor(ctx).snapshot().retentionDays,
    sandbox: ctx.env.sandbox,
    ...(ctx.sandboxDiscordUrl ? { sandboxDiscordUrl: ctx.sandboxDiscordUrl } : {}),
  };
}

/** What the app reads from the running services besides their routers. */
export interface AppSources {
  /** the Discord server's name and icon, when Discord has told us (null otherwise) */
  serverIdentity?: () => Promise<ServerIdentity | null>;
}

export function buildApp(ctx: ServerContext, routers: FeatureRouters, sources: AppSources = {}): Express {
  return createApp({
    logger: ctx.logger,
    database: ctx.database,
    sessionKeys: ctx.secrets.sessionKeys,
    secureCookies: (ctx.env.PUBLIC_URL ?? '').startsWith('https://'),
    trustProxy: ctx.env.TRUST_PROXY,
    publicConfig: async () => {
      const server = await sources.serverIdentity?.().catch(() => null);
      return { ...publicConfigOf(ctx), ...(server ? { server } : {}) };
    },
    apiRouters: routers.api,
    rootRouters: routers.root,
    allowedOrigins: ctx.allowedOrigins,
    webDist: ctx.webDist,
    imageOrigins: ctx.sandboxDiscordUrl ? [new URL(ctx.sandboxDiscordUrl).origin] : [],
    canonicalLoopbackOrigin: ctx.canonicalLoopbackOrigin,
  });
}
