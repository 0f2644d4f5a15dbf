import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  GatewayDispatchEvents,
  OverwriteType,
  type APIMessage,
  type APIRole,
  type APITextChannel,
  type APIUser,
} from 'discord-api-types/v10';
import type { Logger } from 'pino';
import type { EmulatorContext } from './context';
import { makeRole, makeTextChannel } from './entity-factory';
import { FaultInjector, type FaultMode, type FaultOptions } from './faults';
import { Gateway } from './gateway';
import { toApiGuild } from './guild-object';
import { createMessage } from './message-factory';
import {
  buildButtonInteraction,
  buildSlashInteraction,
  deliverInteraction,
  type ClickButtonInput,
  type SlashCommandInput,
} from './interaction-driver';
import type { InteractionResult, WaitOptions } from './interaction-record';
import { approveAuthorizationRequest, revokeUserGrants, authorizationRequestFrom, issueAuthorizationCode } from './oauth';
import { handleAuthorizePage } from './oauth-authorize-page';
import { InvalidRequestLimit, resolveInvalidRequestLimit, type InvalidRequestLimitOption } from './invalid-request-limit';
import { RateLimiter, resolveRateLimits, type RateLimitOption } from './rate-limiter';
import { reportToSink, type OpenApiViolation } from './openapi-check/violations';
import { createRestHandler } from './rest-server';
import { commandRoutes } from './rest-routes/commands';
import { gatewayRoutes } from './rest-routes/gateway';
import { guildMemberRoutes } from './rest-routes/guild-members';
import { guildRoutes } from './rest-routes/guilds';
import { interactionRoutes } from './rest-routes/interactions';
import { messageRoutes } from './rest-routes/messages';
import { oauthTokenRoutes } from './rest-routes/oauth-token';
import { userRoutes } from './rest-routes/users';
import { roleConnectionRoutes } from './rest-routes/role-connections';
import { meetsLinkedRole } from './linked-roles';
import { handleSandboxView, sandboxChannelPath } from './sandbox-view';
import { createApplication, seedState, type SeedName } from './seed';
import type { EmulatorState } from './state';

/** Where the emulator reads the time for OAuth2 expiry: any object with `now()` (a test's movable clock). */
export interface EmulatorClock {
  now(): Date;
}

export interface DiscordEmulatorOptions {
  /** 0 (default) = a random free port. */
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Origin browsers use for the authorize page and sandbox view, when it differs from the bound address. */
  publicUrl?: string;
  /** Discord's limits by default; `false` turns them off; an object replaces some (e.g. shorter windows for a test). */
  rateLimits?: RateLimitOption;
  /** Discord's invalid request limit (10,000 401/403/429 per 10 min per address, then a block); `false` turns it off, an object scales it. */
  invalidRequestLimit?: InvalidRequestLimitOption;
  /** 'sandbox' (default): the seeded sandbox guild and people; 'empty': a guild with only its owner and the bot. */
  seed?: SeedName;
  /** Registered OAuth2 redirect URIs; by default any http(s) URI is accepted. */
  redirectUris?: string[];
  applicationName?: string;
  /** Time for the bot to answer an interaction (default 3000 ms, as Discord). */
  interactionAckTimeoutMs?: number;
  /** HELLO heartbeat interval (default 41250 ms, as Discord). */
  heartbeatIntervalMs?: number;
  /** Clock for OAuth2 code and token expiry (rate limits and interactions use real time, as the client does). */
  clock?: EmulatorClock;
  /** Where unexpected emulator errors go (silent by default), and requests that depart from Discord's OpenAPI description (warnings; undocumented fields at debug). */
  logger?: Logger;
  /** Check every REST request against Discord's OpenAPI description (default true; `openapiViolations` lists what was found). */
  checkOpenApi?: boolean;
}

export interface DiscordEmulator {
  /** Origin for browser pages (authorize page, sandbox view). */
  url: string;
  /** `${internal url}/api`: discord.js `rest: { api: apiBase }` (it appends /v10). */
  apiBase: string;
  gatewayUrl: string;
  application: { id: string; clientId: string; clientSecret: string; botToken: string; botUserId: string; redirectUris: string[] };
  guild: { id: string; name: string; channelId(name: string): string; roleId(name: string): string };
  state: EmulatorState;
  /** Where the OAuth2 authorize page lives (`${url}/oauth2/authorize`). */
  authorizeUrl: string;
  /** The sandbox web view, or one channel of it. */
  sandboxUrl(channelId?: string): string;
  createUser(input: {
    username: string;
    globalName?: string;
    avatar?: string | null;
    bot?: boolean;
    onVpn?: boolean;
    createdAt?: Date;
  }): APIUser;
  getUser(id: string): (APIUser & { onVpn: boolean }) | undefined;
  /** Adds a member directly (no OAuth) and dispatches GUILD_MEMBER_ADD; roles by id or name. */
  addGuildMember(userId: string, roles?: string[]): void;
  removeGuildMember(userId: string): void;
  /** Replaces a member's roles (ids or names), dispatching GUILD_MEMBER_UPDATE. */
  setMemberRoles(userId: string, roles: string[]): void;
  grantRole(userId: string, role: string): void;
  revokeRole(userId: string, role: string): void;
  createRole(input: { name: string; permissions?: bigint; position?: number }): APIRole;
  /** Sets a role's permissions (a member's interaction `member.permissions` follows their roles). */
  setRolePermissions(role: string, permissions: bigint): void;
  /** Deletes a role (by id or name) as an admin does in Discord: members lose it, GUILD_ROLE_DELETE is dispatched. */
  deleteRole(role: string): void;
  createChannel(name: string): APITextChannel;
  /** Replaces a channel's permission overwrites (targets: a role by name or id, or a member by user id), dispatching CHANNEL_UPDATE. */
  setChannelOverwrites(channel: string, overwrites: Array<{ role?: string; userId?: string; allow?: bigint; deny?: bigint }>): void;
  /**
   * Makes `role` a linked role (as a server admin does in the role's Links tab): members meet it when
   * their role connection to the application meets every requirement (metadata key and value).
   */
  setLinkedRole(role: string, requirements: Array<{ key: string; value: number }>): void;
  /** Whether a user's role connection meets a linked role's requirements (what Discord's role menu checks). */
  meetsLinkedRole(userId: string, role: string): boolean;
  /** Discord's raid detection flags the guild (`incidents_data.raid_detected_at`), dispatching GUILD_UPDATE. */
  detectRaid(at?: Date): void;
  /** Moves a role to `position`, shifting the others as Discord does, dispatching GUILD_ROLE_UPDATE for each moved role. */
  setRolePosition(role: string, position: number): void;
  /** A member writes in a channel (dispatches MESSAGE_CREATE). */
  postMessageAs(userId: string, channelId: string, content: string): APIMessage;
  /** The message and custom_id of the first button labelled `label` in a channel (newest message first). */
  findButton(channelId: string, label: string): { messageId: string; customId: string } | undefined;
  issueAuthorizationCode(input: {
    userId: string;
    clientId: string;
    redirectUri: string;
    scope: string;
    codeChallenge?: string;
    codeChallengeMethod?: 'S256';
  }): string;
  /**
   * `userId` approves the authorize page the app sent its visitor to (`authorizeUrl`), as the
   * sandbox sign-in form does: the code and the app's `state` that Discord's redirect back carries.
   */
  authorizeAs(userId: string, authorizeUrl: string | URL): { code: string; state: string };
  /**
   * The user removes the application from their Authorized Apps: every access and refresh token of
   * theirs for it stops working (API calls answer 401; a refresh, 400 invalid_grant). Returns how many grants went.
   */
  revokeGrant(userId: string): number;
  clickButton(input: ClickButtonInput, wait?: WaitOptions): Promise<InteractionResult>;
  runSlashCommand(input: SlashCommandInput, wait?: WaitOptions): Promise<InteractionResult>;
  faults: {
    set(mode: FaultMode, options?: FaultOptions): void;
    /** Closes gateway sockets abruptly so the client reconnects and resumes. */
    dropGateway(): void;
    /** Sends op 7 RECONNECT. */
    requestReconnect(): void;
    /** Sends op 9 INVALID_SESSION (false): the client must identify again. */
    invalidateSessions(): void;
    readonly injected: Readonly<Record<Exclude<FaultMode, 'none'>, number>>;
    /** Discord answers 401 to the bot token from now on, on REST and the gateway (as after a reset in the Developer Portal). */
    revokeBotToken(): void;
    /** The bot token works again. */
    restoreBotToken(): void;
  };
  /** The invalid request limit as modelled (null when turned off). */
  invalidRequests: { readonly limit: number; readonly windowMs: number; readonly bansImposed: number; highest(): number } | null;
  gateway: { readonly connectedSessions: number; readonly stats: { identifies: number; resumes: number; invalidSessions: number } };
  /** Requests that departed from Discord's OpenAPI description, oldest first (the newest 1,000). */
  readonly openapiViolations: readonly OpenApiViolation[];
  close(): Promise<void>;
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function createDiscordEmulator(options: DiscordEmulatorOptions = {}): Promise<DiscordEmulator> {
  const application = createApplication(options.applicationName);
  application.redirectUris = options.redirectUris ?? [];
  const state = seedState(application, options.seed ?? 'sandbox');
  const host = options.host ?? '127.0.0.1';
  const internalHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  let internalUrl = '';
  let publicUrl = '';
  const clock = options.clock;

  const context: EmulatorContext = {
    state,
    application,
    oauthApp: {
      clientId: application.clientId,
      clientSecret: application.clientSecret,
      get redirectUris() {
        return application.redirectUris;
      },
    },
    settings: {
      interactionAckTimeoutMs: options.interactionAckTimeoutMs ?? 3000,
      interactionTokenTtlMs: 15 * 60 * 1000,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    },
    now: () => clock?.now().getTime() ?? Date.now(),
    internalUrl: () => internalUrl,
    publicUrl: () => publicUrl,
  };

  const gatewayUrl = () => `${internalUrl.replace(/^http/, 'ws')}/gateway`;
  const gateway = new Gateway(context, gatewayUrl);
  const faults = new FaultInjector();
  const rateLimits = resolveRateLimits(options.rateLimits);
  const hanging = new Set<ServerResponse>();
  const openapiViolations: OpenApiViolation[] = [];
  const onViolation = (violation: OpenApiViolation) => {
    openapiViolations.push(violation);
    if (openapiViolations.length > 1000) openapiViolations.shift();
    // what Discord ignores (notes) is only worth a debug line: discord.js sends some of it with every reply
    const fields = { method: violation.method, path: violation.path, problems: violation.problems, notes: violation.notes };
    if (violation.problems.length > 0) options.logger?.warn(fields, "discord emulator: a request Discord's API description does not allow");
    else options.logger?.debug(fields, "discord emulator: a request with fields Discord's API description does not document");
    reportToSink(violation);
  };
  const invalidLimit = resolveInvalidRequestLimit(options.invalidRequestLimit);
  const invalidRequests = invalidLimit ? new InvalidRequestLimit(invalidLimit) : null;
  const handleRest = createRestHandler({
    context,
    invalidRequests,
    limiter: rateLimits ? new RateLimiter(rateLimits) : null,
    faults,
    hanging,
    onViolation: options.checkOpenApi === false ? null : onViolation,
    routes: [
      ...gatewayRoutes(context, gatewayUrl),
      ...oauthTokenRoutes(context),
      ...userRoutes(context),
      ...roleConnectionRoutes(context),
      ...guildRoutes(context),
      ...guildMemberRoutes(context),
      ...messageRoutes(context),
      ...interactionRoutes(context),
      ...commandRoutes(context),
    ],
  });

  // async, so that input errors (unknown button, missing option) arrive as rejections like delivery failures do.
  const clickButton = async (input: ClickButtonInput, wait?: WaitOptions) =>
    deliverInteraction(context, buildButtonInteraction(context, input), wait);
  const runSlashCommand = async (input: SlashCommandInput, wait?: WaitOptions) =>
    deliverInteraction(context, buildSlashInteraction(context, input), wait);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator.local');
    const path = url.pathname;
    const api = /^\/api(?:\/v\d+)?(\/.*)?$/.exec(path);
    const apiPath = api ? (api[1] ?? '/') : null;
    if (path === '/oauth2/authorize' || apiPath === '/oauth2/authorize') return handleAuthorizePage(context, req, res, url.searchParams);
    if (apiPath !== null) return handleRest(req, res, apiPath, url.searchParams);
    if (path === '/') {
      res.writeHead(302, { Location: '/sandbox' }).end();
      return;
    }
    if (
      path.startsWith('/sandbox') &&
      (await handleSandboxView({ context, clickButton, runSlashCommand }, req, res, path, url.searchParams))
    )
      return;
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      options.logger?.error({ err: error, url: req.url }, 'discord emulator: unexpected error');
      if (!res.headersSent)
        res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: '500: Internal Server Error', code: 0 }));
    });
  });
  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://emulator.local').pathname.replace(/\/$/, '');
    if (path === '/gateway') gateway.handleUpgrade(req, socket, head);
    else socket.destroy();
  });

  const address = await listen(server, options.port ?? 0, host);
  const hostForUrl = internalHost.includes(':') ? `[${internalHost}]` : internalHost;
  internalUrl = `http://${hostForUrl}:${address.port}`;
  publicUrl = (options.publicUrl ?? internalUrl).replace(/\/$/, '');

  const resolveRole = (role: string): string => {
    if (state.guild.roles.has(role)) return role;
    const byName = state.roleByName(role);
    if (!byName)
      throw new Error(
        `Discord emulator: no role "${role}" (have: ${state
          .sortedRoles()
          .map((r) => r.name)
          .join(', ')})`,
      );
    return byName.id;
  };

  const emulator: DiscordEmulator = {
    url: publicUrl,
    apiBase: `${internalUrl}/api`,
    gatewayUrl: gatewayUrl(),
    application: application,
    guild: {
      id: state.guild.id,
      name: state.guild.name,
      channelId(name) {
        const channel = state.channelByName(name.replace(/^#/, ''));
        if (!channel) throw new Error(`Discord emulator: no channel "${name}"`);
        return channel.id;
      },
      roleId: resolveRole,
    },
    state,
    authorizeUrl: `${publicUrl}/oauth2/authorize`,
    sandboxUrl: (channelId) => `${publicUrl}${channelId ? sandboxChannelPath(channelId) : '/sandbox'}`,
    createUser: (input) => state.createUser(input),
    getUser(id) {
      const record = state.users.get(id);
      return record ? { ...record.user, onVpn: record.onVpn } : undefined;
    },
    addGuildMember: (userId, roles = []) => void state.addMember(userId, roles.map(resolveRole)),
    removeGuildMember: (userId) => state.removeMember(userId),
    setMemberRoles: (userId, roles) => void state.updateMember(userId, { roles: roles.map(resolveRole) }),
    grantRole(userId, role) {
      const member = state.requireMember(userId);
      state.updateMember(userId, { roles: [...member.roles, resolveRole(role)] });
    },
    revokeRole(userId, role) {
      const member = state.requireMember(userId);
      const roleId = resolveRole(role);
      state.updateMember(userId, { roles: member.roles.filter((id) => id !== roleId) });
    },
    createRole(input) {
      const botRole = state.memberRoles(application.botUserId).sort((a, b) => b.position - a.position)[0];
      const position = input.position ?? botRole?.position ?? 1;
      for (const role of state.guild.roles.values()) if (role.id !== state.guild.id && role.position >= position) role.position++;
      const role = makeRole({ name: input.name, position, permissions: input.permissions ?? 0n });
      state.guild.roles.set(role.id, role);
      state.dispatch(GatewayDispatchEvents.GuildRoleCreate, { guild_id: state.guild.id, role });
      return role;
    },
    deleteRole: (role) => state.deleteRole(resolveRole(role)),
    setRolePermissions(role, permissions) {
      const id = resolveRole(role);
      const updated = { ...state.requireRole(id), permissions: String(permissions) };
      state.guild.roles.set(id, updated);
      state.dispatch(GatewayDispatchEvents.GuildRoleUpdate, { guild_id: state.guild.id, role: updated });
    },
    createChannel(name) {
      const channel = makeTextChannel(state.guild.id, name, state.guild.channels.size);
      state.guild.channels.set(channel.id, channel);
      state.dispatch(GatewayDispatchEvents.ChannelCreate, { ...channel, guild_id: state.guild.id });
      return channel;
    },
    setChannelOverwrites(channel, overwrites) {
      const id = state.channelByName(channel)?.id ?? channel;
      const updated: APITextChannel = {
        ...state.requireChannel(id),
        permission_overwrites: overwrites.map((o) => ({
          id: o.userId ?? resolveRole(o.role ?? ''),
          type: o.userId ? OverwriteType.Member : OverwriteType.Role,
          allow: String(o.allow ?? 0n),
          deny: String(o.deny ?? 0n),
        })),
      };
      state.guild.channels.set(id, updated);
      state.dispatch(GatewayDispatchEvents.ChannelUpdate, { ...updated, guild_id: state.guild.id });
    },
    setLinkedRole(role, requirements) {
      state.linkedRoles.set(resolveRole(role), requirements);
      state.notifyChange();
    },
    meetsLinkedRole(userId, role) {
      const requirements = state.linkedRoles.get(resolveRole(role));
      if (!requirements) return false;
      return meetsLinkedRole(state.roleConnectionMetadata, state.roleConnections.get(userId), requirements, context.now());
    },
    detectRaid(at) {
      state.guild.incidents = { ...state.guild.incidents, raid_detected_at: (at ?? new Date(context.now())).toISOString() };
      state.dispatch(GatewayDispatchEvents.GuildUpdate, toApiGuild(state));
    },
    setRolePosition(role, position) {
      const moving = state.requireRole(resolveRole(role));
      const others = state.sortedRoles().filter((r) => r.id !== moving.id && r.id !== state.guild.id);
      others.splice(Math.max(0, Math.min(position - 1, others.length)), 0, moving);
      others.forEach((r, index) => {
        if (r.position === index + 1) return;
        const updated = { ...r, position: index + 1 };
        state.guild.roles.set(r.id, updated);
        state.dispatch(GatewayDispatchEvents.GuildRoleUpdate, { guild_id: state.guild.id, role: updated });
      });
    },
    postMessageAs(userId, channelId, content) {
      state.requireMember(userId);
      state.requireChannel(channelId);
      return state.postMessage(createMessage(state, { channelId, author: state.requireUser(userId), body: { content } }));
    },
    findButton(channelId, label) {
      for (const message of [...state.messages(channelId)].reverse()) {
        const found = findButtonByLabel(message, label);
        if (found) return { messageId: message.id, customId: found };
      }
      return undefined;
    },
    issueAuthorizationCode: (input) => issueAuthorizationCode(state.oauth, context.oauthApp, input, context.now()),
    authorizeAs(userId, authorizeUrl) {
      const params = new URL(authorizeUrl).searchParams;
      const code = approveAuthorizationRequest(state.oauth, context.oauthApp, userId, authorizationRequestFrom(params), context.now());
      return { code, state: params.get('state') ?? '' };
    },
    revokeGrant: (userId) => revokeUserGrants(state.oauth, context.oauthApp.clientId, userId),
    clickButton,
    runSlashCommand,
    faults: {
      set: (mode, faultOptions) => faults.set(mode, faultOptions),
      revokeBotToken: () => {
        application.botTokenRevoked = true;
      },
      restoreBotToken: () => {
        application.botTokenRevoked = false;
      },
      dropGateway: () => gateway.dropConnections(),
      requestReconnect: () => gateway.requestReconnect(),
      invalidateSessions: () => gateway.invalidateSessions(),
      get injected() {
        return faults.injected;
      },
    },
    openapiViolations,
    invalidRequests: invalidRequests
      ? {
          limit: invalidRequests.config.limit,
          windowMs: invalidRequests.config.windowMs,
          get bansImposed() {
            return invalidRequests.bansImposed;
          },
          highest: () => invalidRequests.highest(Date.now()),
        }
      : null,
    gateway: {
      get connectedSessions() {
        return gateway.connectedSessions;
      },
      get stats() {
        return gateway.stats;
      },
    },
    async close() {
      gateway.close();
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return emulator;
}

function findButtonByLabel(message: APIMessage, label: string): string | undefined {
  let found: string | undefined;
  const visit = (node: unknown): void => {
    if (found || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const component = node as { type?: number; label?: string; custom_id?: string; components?: unknown; accessory?: unknown };
    if (component.type === 2 && component.label === label && component.custom_id) found = component.custom_id;
    visit(component.components);
    visit(component.accessory);
  };
  visit(message.components ?? []);
  return found;
}
