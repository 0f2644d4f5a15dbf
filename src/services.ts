import type { Router } from 'express';
import { createBot, type Bot } from './discord/bot/bot';
import { createCommandButtons, createCommandHandlers } from './discord/commands/command-handlers';
import type { DiscordConnection } from './discord/discord-connection';
import { createBotRest } from './discord/discord-rest';
import { createGuildDirectory, type GuildDirectory } from './discord/guild-directory';
import { createBotSetupMonitor } from './discord/bot-setup-monitor';
import { discordHealthRouter } from './http/routes/health.router';
import { createDiscordOAuth } from './discord/oauth-client';
import { createOutboxWorker, type OutboxWorker } from './discord/outbox/outbox-worker';
import type { FeatureRouters, ServerContext } from './http/compose';
import { createRateLimiter } from './http/middleware/rate-limit';
import { oauthRouter } from './http/routes/oauth.router';
import { createStaffRouters } from './http/routes/staff-routes';
import { visitorRouter } from './http/routes/visitor.router';
import { createMetrics, metricsRouter, type Metrics } from './metrics/metrics';
import { altCandidateRepository, altLinkRepository, createAltDetectionService } from './modules/alts';
import { hashIp, resolveClientIp } from './modules/network';
import { createMemberPrivacyService } from './modules/members/member-privacy.service';
import { createMembersService } from './modules/members/members.service';
import { createSharedNetworkService } from './modules/members/shared-network.service';
import { createOutboxRepository, type OutboxRepository } from './modules/outbox/outbox.repository';
import type { SetupCodeStore } from './modules/staff/setup-code';
import type { AltDetector } from './modules/verification/verification.service';
import { createVerificationService, type VerificationService } from './modules/verification/verification.service';
import { createOfflineSignals, defaultOfflineListPaths } from './modules/vpn/offline-lists';
import { createProxycheckClient } from './modules/vpn/proxycheck.client';
import { createVpnCheckService } from './modules/vpn/vpn-check.service';
import { vpnCacheRepository } from './modules/vpn/vpn-cache.repository';

export interface Services {
  metrics: Metrics;
  outbox: OutboxRepository;
  outboxWorker: OutboxWorker;
  directory: GuildDirectory;
  verification: VerificationService;
  bot: Bot;
  routers: FeatureRouters;
  /** the public site visitors are sent to (panel links, OAuth redirect) */
  websiteUrl: string;
}

/**
 * The composition root: every service built once from the context and the Discord
 * connection, and the feature routers that expose them. Roles decide which of them
 * `server.ts` starts.
 */
export function createServices(ctx: ServerContext, discord: DiscordConnection, options: { setupCode: SetupCodeStore; websiteUrl: string; bcryptCost?: number }): Services {
  const { env, database, clock, logger } = ctx;
  const metrics = createMetrics({ defaultMetrics: env.NODE_ENV !== 'test' });
  const outbox = createOutboxRepository({ sealKey: ctx.secrets.outboxKey, now: () => clock.now() });
  const rest = createBotRest({ apiBase: discord.apiBase, botToken: discord.botToken });
  rest.on('rateLimited', (info) => metrics.discordRateLimits.inc({ global: String(info.global) }));
  const guildNames = {
    guildId: discord.guildId,
    roles: { verified: env.DISCORD_VERIFIED_ROLE, limited: env.DISCORD_LIMITED_ROLE, unverified: env.DISCORD_UNVERIFIED_ROLE, staff: env.DISCORD_STAFF_ROLE },
    verificationChannel: env.DISCORD_VERIFICATION_CHANNEL,
    logsChannel: env.DISCORD_LOGS_CHANNEL,
  };
  const directory = createGuildDirectory(rest, guildNames);
  const setupMonitor = createBotSetupMonitor({ rest, names: guildNames, certainAltAction: env.CERTAIN_ALT_ACTION, logger: logger.child({ role: 'setup-check' }) });

  const outboxWorker = createOutboxWorker({
    database,
    outbox,
    rest,
    directory,
    sealKey: ctx.secrets.outboxKey,
    clock,
    logger: logger.child({ role: 'outbox' }),
    onFinished: (entry, result) => metrics.outboxResults.inc({ kind: entry.kind, result }),
  });
  const nudgeOutbox = () => outboxWorker.nudge();

  const altService = createAltDetectionService({ attempts: altCandidateRepository, links: altLinkRepository, clock });
  const alts: AltDetector = {
    async detect(tx, { member, attempt }) {
      const result = await altService.detectAlts(tx, { member, attempt });
      for (const alt of result.alts) if (alt.change === 'created') metrics.altDetections.inc({ confidence: alt.confidence });
      return result.alts.map((alt) => ({
        discordId: alt.otherDiscordId,
        username: alt.otherUsername,
        confidence: alt.confidence,
        detectionMethod: alt.detectionMethod,
        memberIsAlt: alt.memberIs === 'alt',
      }));
    },
  };
  const verification = createVerificationService({
    database,
    clock,
    logger,
    outbox,
    alts,
    vpnFailurePolicy: env.VPN_CHECK_FAILURE,
    nudgeOutbox,
    onCompleted: (outcome) => metrics.verifications.inc({ outcome }),
  });

  const vpnService = createVpnCheckService({
    db: database.db,
    cache: vpnCacheRepository,
    proxycheck: createProxycheckClient({ baseUrl: discord.proxycheckUrl, apiKey: discord.proxycheckKey, timeoutMs: env.PROXYCHECK_TIMEOUT_MS }),
    offline: createOfflineSignals({ paths: defaultOfflineListPaths(env.dataDir), clock, logger }),
    clock,
    cacheTtlMs: env.VPN_CACHE_HOURS * 60 * 60 * 1000,
    logger,
    onProviderCall: (call) => metrics.vpnLatency.observe(call.durationMs / 1000),
  });
  const vpn = {
    async check(input: Parameters<typeof vpnService.check>[0]) {
      const result = await vpnService.check(input);
      metrics.vpnChecks.inc({ verdict: result.verdict, source: result.source });
      return result;
    },
  };

  // per visitor address (hashed): a raid cannot spend the proxy-check quota or the database
  const ipKey = (req: Parameters<Parameters<typeof createRateLimiter>[0]['key']>[0]) => {
    const ip = resolveClientIp(req);
    return ip ? hashIp(ctx.secrets.ipHashKey, ip).ipHash : 'unknown';
  };
  const visitorLimit = createRateLimiter({ capacity: 30, refillPerSecond: 0.5, key: ipKey, clock, message: 'Too many verification attempts from your network, please wait a minute' });

  const oauth = createDiscordOAuth({ apiBase: discord.apiBase, authorizeBase: discord.authorizeBase, clientId: discord.clientId, clientSecret: discord.clientSecret });
  const channel = {
    async links() {
      const channelId = await directory.channelId('verification').catch(() => null);
      if (!channelId) return null;
      return { appUrl: `discord://-/channels/${discord.guildId}/${channelId}`, webUrl: discord.channelWebUrl(channelId) };
    },
  };

  const commandDeps = {
    database,
    clock,
    outbox,
    nudgeOutbox,
    rest,
    directory,
    websiteUrl: options.websiteUrl,
    members: createMembersService({ database, clock, outbox }),
    sharedNetworks: createSharedNetworkService({ database, clock, outbox }),
    privacy: createMemberPrivacyService({ database, clock, outbox, retentionDays: env.RETENTION_DAYS }),
  };
  const bot = createBot({
    config: { token: discord.botToken, apiBase: discord.apiBase, guildId: discord.guildId, websiteUrl: options.websiteUrl, certainAltAction: env.CERTAIN_ALT_ACTION },
    database,
    logger,
    clock,
    rest,
    outbox,
    directory,
    commands: createCommandHandlers(commandDeps),
    buttons: createCommandButtons(commandDeps),
    nudgeOutbox,
    onInteraction: (result) => metrics.interactions.inc({ result }),
    setupMonitor,
  });

  const api: Router[] = [
    visitorRouter({ database, clock, verification, channel, limit: visitorLimit.middleware }),
    ...createStaffRouters({ ctx, discordUsers: { fetchUser: (id) => directory.fetchUser(id) }, outbox, setupCode: options.setupCode, bcryptCost: options.bcryptCost, discordSetup: setupMonitor }),
  ];
  const root: Router[] = [
    discordHealthRouter(setupMonitor),
    oauthRouter({
      database,
      clock,
      logger,
      oauth,
      vpn,
      verification,
      ipHashKey: ctx.secrets.ipHashKey,
      publicUrl: env.PUBLIC_URL,
      sandboxNetwork: discord.simulatedIpFor ? { simulatedIpFor: discord.simulatedIpFor } : undefined,
      limit: visitorLimit.middleware,
    }),
    metricsRouter(metrics, async () => {
      const depth = await outbox.depth(database.db);
      for (const [status, value] of Object.entries(depth)) metrics.outboxDepth.set({ status }, value);
    }),
  ];
  return { metrics, outbox, outboxWorker, directory, verification, bot, routers: { api, root }, websiteUrl: options.websiteUrl };
}
