import os from 'node:os';
import type { Logger } from './logger';
import type { Router } from 'express';
import { createBot, type Bot } from './discord/bot/bot';
import { createCommandButtons, createCommandHandlers } from './discord/commands/command-handlers';
import type { DiscordConnection } from './discord/discord-connection';
import { createBotRest } from './discord/discord-rest';
import { createDiscordGuard, type DiscordGuard } from './discord/discord-guard';
import { createGuildDirectory, type GuildDirectory } from './discord/guild-directory';
import { type ServerIdentity, createBotSetupMonitor } from './discord/bot-setup-monitor';
import { guardRoles } from './discord/outbox/role-guard';
import { discordHealthRouter } from './http/routes/health.router';
import { routeFamily } from './discord/invalid-requests';
import { createVerificationLevelCall } from './discord/lockdown-verification-level-call';
import { createRoleConnectionUpdates } from './discord/role-connection-updates';
import { createDiscordOAuth } from './discord/oauth-client';
import { createTokenRevoker } from './discord/token-revocation';
import { createGuildMemberCache } from './discord/guild-member-cache';
import { createOutboxWorker, type OutboxWorker } from './discord/outbox/outbox-worker';
import { createLogCardButtons } from './discord/log-cards/log-card-buttons';
import { logRaidAlarm } from './operator-events';
import type { FeatureRouters, ServerContext } from './http/compose';
import type { Clock } from './clock';
import type { Database } from './db/client';
import { APPEAL_BUDGET } from './http/middleware/appeal-limit';
import { createRateLimiter, waitInWords } from './http/middleware/rate-limit';
import { createVisitorLimiter } from './http/middleware/visitor-limit';
import { oauthRouter } from './http/routes/oauth.router';
import { createStaffRouters, type DiscordUserLookup, type StaffServices } from './http/routes/staff-routes';
import { createStaffSessionGuard } from './http/middleware/staff-session';
import { visitorRouter } from './http/routes/visitor.router';
import { readVisitor } from './http/visitor-session';
import type { DiscordSetupReader } from './http/routes/discord-setup.router';
import { createMetrics, metricsRouter, type Metrics } from './metrics/metrics';
import { altCandidateRepository, altLinkRepository, createAltDetectionService } from './modules/alts';
import { hashAddress, resolveClientIp } from './modules/network';
import { createMemberPrivacyService, createMembersService, createSharedNetworkService } from './modules/members';
import { createAppealsService } from './modules/appeals';
import { appealRouter } from './http/routes/appeal.router';
import { createOutboxAdminService, createOutboxRepository, type OutboxRepository } from './modules/outbox';
import { createAuditLogService } from './modules/audit';
import {
  DEFAULT_LOGIN_THROTTLE,
  type LoginThrottlePolicy,
  createPasswordHasher,
  DEFAULT_BCRYPT_COST,
  defaultHashThreads,
  workerBcrypt,
  type BcryptRunner,
  createStaffAccountsService,
  createStaffLoginService,
  WAITING_PER_HASH_THREAD,
  type SetupCodeStore,
  type BoundedQueue,
  type FloodRule,
} from './modules/staff';
import { planWebProcesses } from './web-processes';
import { createAltDetector, createVerificationService, type VerificationService } from './modules/verification';
import {
  createOfflineSignals,
  defaultOfflineListPaths,
  createProxycheckClient,
  createVpnCheckService,
  vpnCacheRepository,
} from './modules/vpn';
import { createGuildNamesCheck, settingsFor, type GuildNamesCheck, type SettingsService } from './modules/settings';
import { createAdmissionService, type AdmissionService } from './modules/admission';
import { wantsDiscordLevers } from './modules/raid';
import { createLinkedRolesRegistration, type LinkedRolesRegistration } from './discord/linked-roles-registration';
import { createStatisticsService } from './modules/statistics';
import { admissionStatusRouter } from './http/routes/admission-status.router';

export interface Services {
  metrics: Metrics;
  /** the owner's settings (stored value over environment default), shared by the whole process */
  settings: SettingsService;
  outbox: OutboxRepository;
  outboxWorker: OutboxWorker;
  directory: GuildDirectory;
  verification: VerificationService;
  /** the admission rules, the lockdown and its pause in Discord, the raid alarm */
  admission: AdmissionService;
  /** Linked Roles' metadata registration (registered at start while the setting is on) */
  linkedRoles: LinkedRolesRegistration;
  bot: Bot;
  routers: FeatureRouters;
  /** the public site visitors are sent to (panel links, OAuth redirect) */
  websiteUrl: string;
  /** the process's Discord guard: the bot token's state, the invalid-request count and its budget gate */
  guard: DiscordGuard;
  /** the Discord server's name and icon for the visitor pages (null until Discord has told us) */
  serverIdentity: () => Promise<ServerIdentity | null>;
}

/**
 * The composition root: every service built once from the context and the Discord
 * connection, and the feature routers that expose them. Roles decide which of them
 * `server.ts` starts.
 */
export function createServices(
  ctx: ServerContext,
  discord: DiscordConnection,
  options: {
    setupCode: SetupCodeStore;
    websiteUrl: string;
    bcryptCost?: number;
    /** tests: Discord's invalid request limit scaled down, as the emulator's is */ invalidRequestLimit?: {
      limit: number;
      windowMs: number;
    };
  },
): Services {
  const { env, database, clock, logger } = ctx;
  // one per process: the invalid-request count, the budget gate and the bot token's health
  const guard = createDiscordGuard({
    apiBase: discord.apiBase,
    botToken: discord.botToken,
    logger: logger.child({ role: 'discord-guard' }),
    invalidLimit: options.invalidRequestLimit,
  });
  // the invalid-request gauge is read at each scrape: the count falls as old answers leave the window
  const metrics = createMetrics({ defaultMetrics: env.NODE_ENV !== 'test', invalidRequests: () => guard.invalid.snapshot().byFamily });
  const outbox = createOutboxRepository({ sealKey: ctx.secrets.outboxKey, now: () => clock.now() });
  const rest = createBotRest({ apiBase: discord.apiBase, botToken: discord.botToken, guard });
  rest.on('rateLimited', (info) => metrics.discordRateLimits.inc({ global: String(info.global) }));
  // owner settings: the getters below read the live value at each use, so a change applies without a restart
  const settings = settingsFor(ctx);
  const live = () => settings.snapshot();
  const guildNames = {
    guildId: discord.guildId,
    roles: {
      get verified() {
        return live().verifiedRole;
      },
      get limited() {
        return live().limitedRole;
      },
      get unverified() {
        return live().unverifiedRole;
      },
      get staff() {
        return live().staffRole;
      },
    },
    get verificationChannel() {
      return live().verificationChannel;
    },
    get logsChannel() {
      return live().logsChannel;
    },
  };
  const directory = createGuildDirectory(rest, guildNames);
  const setupMonitor = createBotSetupMonitor({
    rest,
    names: guildNames,
    get certainAltAction() {
      return live().certainAltAction;
    },
    get discordLevers() {
      return wantsDiscordLevers(live());
    },
    logger: logger.child({ role: 'setup-check' }),
  });
  // roles whose choice the self-check refuses (a dangerous Verified role, Staff chosen as Verified) are never given or taken
  const guardedDirectory = guardRoles(directory, () => setupMonitor.refusedRoles());

  // what the bot sees of members (interactions, member events) spares the outbox calls
  const guildMembers = createGuildMemberCache();
  // one OAuth client, so one queue for the app's code exchanges and revocations in this process
  // the visitors' OAuth calls count toward Discord's invalid-request limit like the bot's, and wait on the same budget
  const oauth = createDiscordOAuth({
    apiBase: discord.apiBase,
    authorizeBase: discord.authorizeBase,
    clientId: discord.clientId,
    clientSecret: discord.clientSecret,
    onResponse: (status, path, scope) => void guard.invalid.record(routeFamily(path), status, scope),
    beforeRequest: () => guard.gate.pass(true),
  });
  const tokenRevoker = createTokenRevoker({ oauth, logger: logger.child({ role: 'oauth' }) });
  const outboxWorker = createOutboxWorker({
    database,
    outbox,
    rest,
    directory: guardedDirectory,
    members: guildMembers,
    sealKey: ctx.secrets.outboxKey,
    websiteUrl: options.websiteUrl,
    alarmPingRole: () => live().alarmPingRole,
    clock,
    logger: logger.child({ role: 'outbox' }),
    guard,
    setupProblems: async () => (await setupMonitor.run()).problems,
    onFinished: (entry, result) => metrics.outboxResults.inc({ kind: entry.kind, result }),
    revokeAccessToken: tokenRevoker.revoke,
    verificationLevel: createVerificationLevelCall({
      rest,
      database,
      guildId: discord.guildId,
      logger: logger.child({ role: 'lockdown' }),
      now: () => clock.now(),
    }),
    roleConnections: createRoleConnectionUpdates({
      database,
      oauth,
      sealKey: ctx.secrets.outboxKey,
      logger: logger.child({ role: 'linked-roles' }),
      now: () => clock.now(),
    }),
  });
  const nudgeOutbox = () => outboxWorker.nudge();

  const altService = createAltDetectionService({ attempts: altCandidateRepository, links: altLinkRepository, clock });
  const alts = createAltDetector(altService, (confidence) => metrics.altDetections.inc({ confidence }));
  // raid alarm and admission rules (lockdown, account age), run inside each verification's transaction
  const admission = createAdmissionService({
    database,
    clock,
    settings,
    outbox,
    nudgeOutbox,
    logger,
    onRaidAlarm: (reasons, lockdownStarted) => {
      metrics.raidAlarms.inc({ reason: reasons[0] ?? 'rate' });
      logRaidAlarm(logger, { reasons, lockdownStarted });
    },
  });
  const verification = createVerificationService({
    database,
    clock,
    logger,
    outbox,
    alts,
    get vpnFailurePolicy() {
      return live().vpnCheckFailure;
    },
    get certainAltAction() {
      return live().certainAltAction;
    },
    // the address hashing key, under its own purpose label: one key to configure (IP_HASH_KEY) for every host
    browserTokenKey: ctx.secrets.ipHashKey,
    // consent tokens and OAuth states are held by the browser like the session cookie, and signed with its key
    tokenKey: Buffer.from(ctx.secrets.sessionKeys[0]!, 'utf8'),
    nudgeOutbox,
    linkedRoles: {
      get enabled() {
        return live().linkedRoles;
      },
      sealKey: ctx.secrets.outboxKey,
    },
    onCompleted: (outcome) => metrics.verifications.inc({ outcome }),
    admission,
  });

  const vpnService = createVpnCheckService({
    db: database.db,
    cache: vpnCacheRepository,
    proxycheck: createProxycheckClient({
      baseUrl: discord.proxycheckUrl,
      apiKey: discord.proxycheckKey,
      timeoutMs: env.PROXYCHECK_TIMEOUT_MS,
    }),
    offline: createOfflineSignals({ paths: defaultOfflineListPaths(env.dataDir), clock, logger }),
    clock,
    cacheTtlMs: env.VPN_CACHE_HOURS * 60 * 60 * 1000,
    logger,
    onProviderCall: (call) => metrics.vpnLatency.observe(call.durationMs / 1000),
  });
  const vpn = {
    readCacheEarly: vpnService.readCacheEarly,
    async check(input: Parameters<typeof vpnService.check>[0]) {
      const result = await vpnService.check(input);
      metrics.vpnChecks.inc({ verdict: result.verdict, source: result.source });
      return result;
    },
  };

  // per visitor address (hashed): a raid cannot spend the proxy-check quota or the database
  const ipKey = (req: Parameters<Parameters<typeof createRateLimiter>[0]['key']>[0]) => {
    const ip = resolveClientIp(req);
    return ip ? hashAddress(ctx.secrets.ipHashKey, ip) : 'unknown';
  };
  const appealLimit = createRateLimiter({
    ...APPEAL_BUDGET,
    key: (req) => {
      const discordId = readVisitor(req).appellant?.discordId ?? readVisitor(req).verified?.discordId;
      return discordId ? `member:${discordId}` : `ip:${ipKey(req)}`;
    },
    clock,
    message: (seconds) => `Too many appeals: please try again in ${waitInWords(seconds)}`,
  });
  // per visitor session and per address, sized for a class behind one address (visitor-limit.ts)
  const visitorLimit = createVisitorLimiter({ clock, addressKey: ipKey });

  const channel = {
    async links() {
      const channelId = await directory.channelId('verification').catch(() => null);
      if (!channelId) return null;
      return { appUrl: `discord://-/channels/${discord.guildId}/${channelId}`, webUrl: discord.channelWebUrl(channelId) };
    },
  };

  // "Verified with Gatekeeper" as a Linked Role requirement: its metadata, registered while the setting is on
  const linkedRoles = createLinkedRolesRegistration({
    rest,
    applicationId: discord.clientId,
    get enabled() {
      return live().linkedRoles;
    },
    logger: logger.child({ role: 'linked-roles' }),
  });
  const staffServices = createStaffServices({
    database,
    clock,
    logger,
    ipHashKey: ctx.secrets.ipHashKey,
    deviceKeys: ctx.secrets.sessionKeys,
    secureCookies: (env.PUBLIC_URL ?? '').startsWith('https://'),
    outbox,
    setupCode: options.setupCode,
    bcryptCost: options.bcryptCost,
    webProcesses: planWebProcesses(env, os.availableParallelism()).count,
    discordUsers: { fetchUser: (id) => directory.fetchUser(id) },
    settings,
    guildNames: createGuildNamesCheck(rest, discord.guildId),
    admission,
    discordSetup: {
      // the permission self-check, and Linked Roles when Discord refused their set-up
      current: async () => {
        const report = await setupMonitor.current();
        const linked = linkedRoles.problem();
        return linked ? { ...report, problems: [...report.problems, linked] } : report;
      },
      standing: () => ({ token: guard.token.status(), invalidRequests: { ...guard.invalid.snapshot(), budget: guard.gate.state() } }),
      waiting: () => outbox.parkedSummary(database.db),
    },
  });
  const commandDeps = {
    database,
    clock,
    outbox,
    nudgeOutbox,
    rest,
    directory,
    websiteUrl: options.websiteUrl,
    members: staffServices.members,
    sharedNetworks: staffServices.sharedNetworks,
    appeals: staffServices.appeals,
    admission,
    privacy: createMemberPrivacyService({
      database,
      clock,
      outbox,
      get retentionDays() {
        return live().retentionDays;
      },
    }),
  };
  const bot = createBot({
    config: { token: discord.botToken, apiBase: discord.apiBase, guildId: discord.guildId, websiteUrl: options.websiteUrl },
    database,
    logger,
    clock,
    rest,
    directory: guardedDirectory,
    verification,
    commands: createCommandHandlers(commandDeps),
    buttons: [
      ...createCommandButtons(commandDeps),
      createLogCardButtons({
        members: staffServices.members,
        appeals: staffServices.appeals,
        rest,
        logger: logger.child({ role: 'bot' }),
        nudgeOutbox,
      }),
    ],
    nudgeOutbox,
    onInteraction: (result) => metrics.interactions.inc({ result }),
    setupMonitor,
    members: guildMembers,
    guard,
    // Discord's own raid detection raises Gatekeeper's raid alarm (once per detection)
    onIncidents: (incidents) => {
      if (!incidents?.raid_detected_at) return;
      admission
        .discordRaidDetected(incidents.raid_detected_at)
        .catch((error: unknown) => logger.error({ err: error }, 'could not record the raid Discord detected'));
    },
  });

  const api: Router[] = [
    visitorRouter({ verification, channel, limit: visitorLimit.middleware, secureCookies: (env.PUBLIC_URL ?? '').startsWith('https://') }),
    appealRouter({ appeals: staffServices.appeals, now: () => clock.now().getTime(), limit: appealLimit.middleware }),
    admissionStatusRouter({ admission }),
    ...createStaffRouters(staffServices),
  ];
  const root: Router[] = [
    discordHealthRouter(setupMonitor, guard),
    oauthRouter({
      clock,
      logger,
      db: database.db,
      oauth,
      revokeAccessToken: tokenRevoker.revoke,
      vpn,
      verification,
      ipHashKey: ctx.secrets.ipHashKey,
      publicUrl: env.PUBLIC_URL,
      sandboxNetwork: discord.simulatedIpFor ? { simulatedIpFor: discord.simulatedIpFor } : undefined,
      limit: visitorLimit.middleware,
      linkedRoles: {
        database,
        registration: linkedRoles,
        // the sign-in from Discord's role menu keeps the member's grant as the verification sign-in does
        grants: {
          get enabled() {
            return live().linkedRoles;
          },
          sealKey: ctx.secrets.outboxKey,
          outbox,
          nudgeOutbox,
          now: () => clock.now(),
        },
      },
    }),
    metricsRouter(
      metrics,
      async () => {
        const depth = await outbox.depth(database.db);
        for (const [status, value] of Object.entries(depth)) metrics.outboxDepth.set({ status }, value);
      },
      env.METRICS_TOKEN,
    ),
  ];
  return {
    metrics,
    settings,
    outbox,
    outboxWorker,
    directory,
    verification,
    admission,
    linkedRoles,
    bot,
    routers: { api, root },
    websiteUrl: options.websiteUrl,
    guard,
    // the server a visitor joins, named on the consent page
    serverIdentity: () => setupMonitor.identity(),
  };
}

/**
 * The services behind the staff-facing routes and commands: one members service, one
 * session guard, one outbox view for the whole process.
 */
export function createStaffServices(deps: {
  database: Database;
  clock: Clock;
  /** the operator's log (one line per staff decision) */
  logger?: Logger;
  /** keys the login throttle's hashes of usernames and addresses */
  ipHashKey: Buffer;
  /** sign staff device cookies: the session cookie's keys */
  deviceKeys: readonly string[];
  /** Secure cookies (served over https) */
  secureCookies: boolean;
  /** the gate in front of sign-ins from unknown devices: its default size unless a test asks for another */
  signInGate?: BoundedQueue;
  /** when a flood of unknown sign-ins pauses them, when a test needs its own rule */
  signInFlood?: FloodRule;
  outbox: OutboxRepository;
  setupCode: SetupCodeStore;
  discordUsers: DiscordUserLookup;
  /** bcrypt cost; DEFAULT_BCRYPT_COST (12) unless a test asks for less */
  bcryptCost?: number;
  /** how many web processes serve (WEB_CONCURRENCY as planned): they share the machine's password threads */
  webProcesses?: number;
  /** where bcrypt runs: worker threads unless a test runs it inline */
  bcrypt?: BcryptRunner;
  loginThrottle?: LoginThrottlePolicy;
  settings: SettingsService;
  /** checks role and channel names when settings change (skipped without) */
  guildNames?: GuildNamesCheck;
  admission: AdmissionService;
  /** the bot's permission self-check, shown to staff */
  discordSetup?: DiscordSetupReader;
}): StaffServices {
  const { database, clock, outbox } = deps;
  const threads = defaultHashThreads(os.availableParallelism(), deps.webProcesses ?? 1);
  // two checks per thread wait behind the running ones (well under a second's worth at cost 12 on a quiet machine); more are refused at once
  const hasher = createPasswordHasher(
    deps.bcryptCost ?? DEFAULT_BCRYPT_COST,
    // and one thread more for known clients' checks only, which start at once rather than behind a spray's running one
    deps.bcrypt ?? workerBcrypt({ threads, queueLimit: threads * WAITING_PER_HASH_THREAD, priorityReserve: 1 }),
  );
  const members = createMembersService({ database, clock, outbox, logger: deps.logger });
  const loginThrottle = deps.loginThrottle ?? DEFAULT_LOGIN_THROTTLE;
  return {
    clock,
    guard: createStaffSessionGuard({ database, clock }),
    accounts: createStaffAccountsService({
      database,
      clock,
      hasher,
      setupCode: deps.setupCode,
      throttle: loginThrottle,
      hmacKey: deps.ipHashKey,
    }),
    login: createStaffLoginService({
      database,
      clock,
      hasher,
      throttle: loginThrottle,
      hmacKey: deps.ipHashKey,
      deviceKeys: deps.deviceKeys,
      gate: deps.signInGate,
      flood: deps.signInFlood,
    }),
    secureCookies: deps.secureCookies,
    members,
    appeals: createAppealsService({ database, clock, outbox, altLinks: members, logger: deps.logger }),
    sharedNetworks: createSharedNetworkService({ database, clock, outbox }),
    auditLog: createAuditLogService({ database }),
    outboxAdmin: createOutboxAdminService({ database, clock, outbox }),
    discordUsers: deps.discordUsers,
    settings: deps.settings,
    guildNames: deps.guildNames,
    statistics: createStatisticsService({ database, clock }),
    admission: deps.admission,
    discordSetup: deps.discordSetup,
  };
}
