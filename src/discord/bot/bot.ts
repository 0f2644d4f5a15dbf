import { setTimeout as sleep } from 'node:timers/promises';
import {
  Client,
  Events,
  GatewayIntentBits,
  PermissionFlagsBits,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { REST } from '@discordjs/rest';
import type { APIIncidentsData } from 'discord-api-types/v10';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import type { Logger } from '../../logger';
import type { VerificationService } from '../../modules/verification';
import type { GuildDirectory } from '../guild-directory';
import { learnFromGatewayEvent, type GuildMemberCache } from '../guild-member-cache';
import type { BotSetupMonitor } from '../bot-setup-monitor';
import { BotRest, GLOBAL_REQUESTS_PER_SECOND, guardGatewayClientRest, restUserAgentAppendix } from '../discord-rest';
import type { DiscordGuard } from '../discord-guard';
import { createInteractionDispatcher, type ButtonRoute, type CommandHandler } from './interaction-dispatcher';
import { createLeaderLock } from './leader-lock';
import { ensureVerificationPanel } from './verification-panel';
import { createVerifyButtonHandler, VERIFY_BUTTON_ID, VERIFY_DEFER_AFTER_MS } from './verify-button';

export interface BotConfig {
  token: string;
  apiBase: string;
  guildId: string;
  websiteUrl: string;
}

const LEADER_RETRY_MS = 5_000;
/** Several changes in a burst (dragging roles dispatches one update per moved role) make one self-check. */
const SETUP_CHECK_DEBOUNCE_MS = 1_000;
/** How long stop() lets a login in flight finish before it destroys the client anyway (see stop()). */
const LOGIN_SETTLE_MS = 10_000;
const SETUP_EVENTS = new Set([
  'GUILD_UPDATE',
  'GUILD_ROLE_CREATE',
  'GUILD_ROLE_UPDATE',
  'GUILD_ROLE_DELETE',
  'CHANNEL_CREATE',
  'CHANNEL_UPDATE',
  'CHANNEL_DELETE',
]);

/**
 * The gateway bot (role `bot`). It logs in only while this process holds the leader
 * lock, posts or reuses the verification panel, and answers interactions through one
 * dispatcher. A rejected token is reported once, naming DISCORD_BOT_TOKEN, and the
 * rest of the process keeps serving.
 */
export function createBot(deps: {
  config: BotConfig;
  database: Database;
  logger: Logger;
  clock: Clock;
  rest: REST;
  directory: GuildDirectory;
  verification: Pick<VerificationService, 'completeAtButton'>;
  commands?: Record<string, CommandHandler>;
  /** buttons that command replies carry (e.g. the /privacy delete confirmation) */
  buttons?: ButtonRoute[];
  nudgeOutbox?: () => void;
  /** counts interaction results (metrics) */
  onInteraction?: (result: 'handled' | 'refused' | 'failed') => void;
  /** the permission self-check, re-run when the server's roles, channels or the bot's own roles change */
  setupMonitor?: BotSetupMonitor;
  /** learns who is in the guild with which roles from interactions and member events (read by the outbox) */
  members?: GuildMemberCache;
  /** the process's Discord guard: the gateway client's REST calls (interaction replies and the rest) pass its budget gate and count in its invalid-request count */
  guard?: DiscordGuard;
  /** the guild's `incidents_data` as GUILD_CREATE and GUILD_UPDATE carry it (Discord's raid detection, the pauses) */
  onIncidents?: (incidents: APIIncidentsData | null) => void;
}) {
  const logger = deps.logger.child({ role: 'bot' });
  const lock = createLeaderLock(deps.database);
  let client: Client | undefined;
  /** stops the guard watching the current client's REST answers */
  let unwatchRest: (() => void) | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  /** the latest login: settles (never rejects) when discord.js's login has resolved or failed; once settled, stop() waits for nothing */
  let loggingIn: Promise<void> | undefined;
  let readyResolve: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => (readyResolve = resolve));
  const state = { leader: false, ready: false, panelMessageId: null as string | null, fatal: null as string | null };

  const dispatcher = createInteractionDispatcher({
    logger,
    guildId: deps.config.guildId,
    buttons: [
      {
        prefix: VERIFY_BUTTON_ID,
        handler: createVerifyButtonHandler({ verification: deps.verification, websiteUrl: deps.config.websiteUrl }),
        // the click writes the decision and queues the roles: deferred early when the database is slow
        deferAfterMs: VERIFY_DEFER_AFTER_MS,
      },
      ...(deps.buttons ?? []),
    ],
    commands: deps.commands ?? {},
    isStaff: (interaction) => isStaffMember(interaction),
    onResult: deps.onInteraction,
  });

  let setupTimer: NodeJS.Timeout | undefined;
  function scheduleSetupCheck(): void {
    if (!deps.setupMonitor || setupTimer) return;
    setupTimer = setTimeout(() => {
      setupTimer = undefined;
      void deps.setupMonitor?.run();
    }, SETUP_CHECK_DEBOUNCE_MS);
    setupTimer.unref();
  }

  /** Raw gateway events: the bot caches nothing it would need to see these changes otherwise. */
  function onRawEvent(packet: { t?: string | null; d?: unknown }, botUserId: string | undefined): void {
    if (!packet.t) return;
    const guildEvent = packet.t === 'GUILD_UPDATE' || packet.t === 'GUILD_CREATE';
    const guildId =
      (packet.d as { guild_id?: string; id?: string } | undefined)?.guild_id ?? (guildEvent ? (packet.d as { id?: string }).id : undefined);
    if (guildId !== deps.config.guildId) return;
    if (guildEvent) deps.onIncidents?.((packet.d as { incidents_data?: APIIncidentsData | null }).incidents_data ?? null);
    if (deps.members) learnFromGatewayEvent(deps.members, packet);
    const ownMemberUpdate = packet.t === 'GUILD_MEMBER_UPDATE' && (packet.d as { user?: { id?: string } }).user?.id === botUserId;
    if (SETUP_EVENTS.has(packet.t) || ownMemberUpdate) scheduleSetupCheck();
  }

  async function isStaffMember(interaction: ChatInputCommandInteraction | ButtonInteraction): Promise<boolean> {
    if (interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild)) return true;
    const staffRoleId = await deps.directory.roleId('staff').catch(() => null);
    const roles = interaction.member?.roles;
    if (!staffRoleId || !roles) return false;
    return Array.isArray(roles) ? roles.includes(staffRoleId) : roles.cache.has(staffRoleId);
  }

  async function login(): Promise<void> {
    const next = new Client({
      intents: [GatewayIntentBits.Guilds],
      rest: {
        api: deps.config.apiBase,
        globalRequestsPerSecond: GLOBAL_REQUESTS_PER_SECOND.gatewayClient,
        userAgentAppendix: restUserAgentAppendix(),
      },
    });
    unwatchRest?.();
    unwatchRest = deps.guard ? guardGatewayClientRest(next, deps.guard, deps.config.token) : undefined;
    // answers to interactions (the reply, its edit) do not queue behind the bot's other calls (bot/interaction-rest.ts)
    if (!deps.guard) {
      next.rest.clearHashSweeper();
      next.rest.clearHandlerSweeper();
      next.rest = new BotRest(next.options.rest);
    }
    client = next;
    next.on(Events.InteractionCreate, (interaction) => void dispatcher.dispatch(interaction));
    next.on(Events.Error, (error) => logger.error({ err: error }, 'gateway error'));
    next.on(Events.Raw, (packet: { t?: string | null; d?: unknown }) => onRawEvent(packet, next.user?.id));
    next.once(Events.ClientReady, async (ready) => {
      // stopping: the client is destroyed as soon as its login returns; nothing is posted
      if (stopped) return;
      state.ready = true;
      logger.info({ user: ready.user.tag }, 'bot connected to Discord');
      await deps.setupMonitor?.run();
      try {
        const channelId = await deps.directory.channelId('verification');
        const panel = await ensureVerificationPanel(deps.rest, {
          channelId,
          botUserId: ready.user.id,
          websiteUrl: deps.config.websiteUrl,
          knownMessageId: state.panelMessageId,
        });
        state.panelMessageId = panel.messageId;
        if (panel.posted) logger.info({ channelId }, 'verification panel posted');
      } catch (error) {
        logger.error({ err: error }, 'could not post the verification panel');
      }
      readyResolve?.();
    });
    const attempt = next.login(deps.config.token);
    loggingIn = attempt.then(
      () => undefined,
      () => undefined,
    );
    try {
      await attempt;
    } catch (error) {
      if (stopped) return; // destroyed by stop() while logging in: not a connection failure
      const code = (error as { code?: string }).code;
      state.fatal =
        code === 'TokenInvalid' || /token/i.test(String((error as Error).message))
          ? 'DISCORD_BOT_TOKEN was rejected by Discord (invalid token): the bot is not running; the website keeps serving.'
          : `The bot could not connect to Discord: ${(error as Error).message}`;
      logger.error(state.fatal);
      await next.destroy().catch(() => undefined);
      client = undefined;
      if (code !== 'TokenInvalid') schedule();
    }
  }

  function schedule(): void {
    if (stopped) return;
    retry = setTimeout(() => void campaign(), LEADER_RETRY_MS);
    retry.unref();
  }

  async function campaign(): Promise<void> {
    if (stopped || client) return;
    try {
      const leader = await lock.tryAcquire(() => {
        logger.warn('lost the bot leader lock: disconnecting');
        state.leader = false;
        state.ready = false;
        void client?.destroy();
        client = undefined;
        schedule();
      });
      // stopped while the election ran (a SIGTERM during start-up): connecting now would leave a gateway
      // session open after stop() returned, and the process waiting on it
      if (stopped) {
        if (leader) await lock.release();
        return;
      }
      state.leader = leader;
      if (!leader) return schedule();
      await login();
    } catch (error) {
      logger.warn({ err: error }, 'bot leader election failed, retrying');
      schedule();
    }
  }

  return {
    state,
    dispatcher,
    /** resolves once the bot is connected and its panel is in place */
    ready,
    start(): void {
      stopped = false;
      void campaign();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (retry) clearTimeout(retry);
      if (setupTimer) clearTimeout(setupTimer);
      // discord.js's destroy() while its login is still connecting can wait forever (seen with the machine
      // loaded: SIGTERM 50 ms after start-up, the login finished 6 s later, stop() never returned and the
      // shutdown's 20 s guard exited 1). A login in flight is let finish first, for up to LOGIN_SETTLE_MS.
      if (loggingIn) await Promise.race([loggingIn, sleep(LOGIN_SETTLE_MS, undefined, { ref: false })]);
      await client?.destroy();
      client = undefined;
      unwatchRest?.();
      unwatchRest = undefined;
      state.ready = false;
      state.leader = false;
      await lock.release();
    },
  };
}

export type Bot = ReturnType<typeof createBot>;
