import { logDiscordPermissionProblem } from '../operator-events';
import type { REST } from '@discordjs/rest';
import {
  Routes,
  type APIGuild,
  type APIGuildChannel,
  type APIGuildMember,
  type APIUser,
  type GuildChannelType,
} from 'discord-api-types/v10';
import type { Logger } from '../logger';
import { checkBotSetup, refusedRoleChoices, type SetupCheckInput, type SetupProblem } from './bot-setup-check';
import { ROLE_SLOT_NAMES, type RoleProblem } from './role-safety';
import { findByNameOrId, type GuildNames } from './guild-directory';

export interface SetupReport {
  /** ISO time of the check */
  checkedAt: string;
  /** empty when the bot can do everything it needs */
  problems: SetupProblem[];
  /** set when Discord could not be asked (the problems are then unknown, not absent) */
  error?: string;
}

const FRESH_MS = 60_000;
/** How long a visitor page waits for the first read of the guild before it shows no server name. */
const FIRST_READ_WAIT_MS = 2_000;

/** The server a visitor is joining, as its consent page names it. */
export interface ServerIdentity {
  name: string;
  /** the server's icon on Discord's CDN, or null when it has none (the page shows its initials) */
  iconUrl: string | null;
}

/** Discord's CDN address of a guild icon (animated icons start with a_). */
export function guildIconUrl(guild: { id: string; icon: string | null }, cdnBase = 'https://cdn.discordapp.com'): string | null {
  if (!guild.icon) return null;
  return `${cdnBase}/icons/${guild.id}/${guild.icon}.${guild.icon.startsWith('a_') ? 'gif' : 'png'}?size=128`;
}

/**
 * Reads the guild as the bot sees it (roles, channels with their overwrites, the bot's
 * own roles), runs the permission self-check and logs what changed since the last run.
 * The bot runs it at start and on guild, role, channel and own-member updates; the web
 * side reads `current()`, which re-checks when the last result is a minute old.
 */
export function createBotSetupMonitor(deps: {
  rest: REST;
  names: GuildNames;
  certainAltAction: SetupCheckInput['certainAltAction'];
  readonly discordLevers?: boolean;
  logger: Logger;
}) {
  let latest: SetupReport | undefined;
  let running: Promise<SetupReport> | undefined;
  let botUser: APIUser | undefined;
  /** the role choices refused at the last check that could read the guild (kept while Discord does not answer) */
  let refused: RoleProblem[] = [];
  /** the guild's name and icon as of the last read that reached Discord */
  let identity: ServerIdentity | null = null;

  async function read(): Promise<SetupCheckInput> {
    const { rest, names } = deps;
    botUser ??= (await rest.get(Routes.user('@me'))) as APIUser;
    const guild = (await rest.get(Routes.guild(names.guildId))) as APIGuild;
    identity = { name: guild.name, iconUrl: guildIconUrl(guild) };
    const channels = (await rest.get(Routes.guildChannels(names.guildId))) as APIGuildChannel<GuildChannelType>[];
    const member = (await rest.get(Routes.guildMember(names.guildId, botUser.id))) as APIGuildMember;
    const channel = (configured: string) => {
      const found = findByNameOrId(channels, configured);
      return {
        configured,
        found: found ? { id: found.id, name: found.name ?? configured, permission_overwrites: found.permission_overwrites } : undefined,
      };
    };
    const role = (configured: string) => ({ configured, found: findByNameOrId(guild.roles, configured) });
    const botRoles = guild.roles.filter((r) => member.roles.includes(r.id));
    const botRole = botRoles.find((r) => r.tags?.bot_id === botUser?.id) ?? botRoles.sort((a, b) => b.position - a.position)[0];
    return {
      guild: { guildId: guild.id, ownerId: guild.owner_id, roles: guild.roles },
      bot: { userId: botUser.id, roleIds: member.roles, name: botRole?.name ?? botUser.username },
      channels: { verification: channel(names.verificationChannel), logs: channel(names.logsChannel) },
      roles: {
        verified: role(names.roles.verified),
        limited: role(names.roles.limited),
        unverified: role(names.roles.unverified),
        staff: { configured: names.roles.staff },
      },
      certainAltAction: deps.certainAltAction,
      discordLevers: deps.discordLevers,
    };
  }

  function log(previous: SetupReport | undefined, next: SetupReport): void {
    const key = (report: SetupReport | undefined) => JSON.stringify(report?.problems ?? null) + (report?.error ?? '');
    if (key(previous) === key(next)) return;
    if (next.error) deps.logger.warn({ error: next.error }, 'Discord permission self-check could not run');
    const refusedText = new Set(refused.map((r) => r.problem));
    // a refused role choice is one plain line: the problem, its fix, and what Gatekeeper does meanwhile
    for (const r of next.error ? [] : refused) {
      const roles = r.slots.filter((slot) => slot !== 'staff').map((slot) => ROLE_SLOT_NAMES[slot].label);
      const meanwhile =
        roles.length > 0
          ? `until then Gatekeeper gives and takes no ${roles.join(' or ')} role (those role changes wait in the outbox)`
          : 'until then nobody is staff through that role';
      deps.logger.error(`Role configuration refused: ${r.problem} Fix: ${r.fix} ${meanwhile[0]!.toUpperCase()}${meanwhile.slice(1)}.`);
    }
    for (const problem of next.problems)
      if (!refusedText.has(problem.problem)) logDiscordPermissionProblem(deps.logger, { problem: problem.problem, fix: problem.fix });
    if (!next.error && next.problems.length === 0) deps.logger.info('Discord permission self-check: the bot has every permission it needs');
  }

  /** a check queued behind the one under way, shared by every caller that asks meanwhile */
  let queued: Promise<SetupReport> | undefined;

  /**
   * A check that reads the guild after this call. One under way may have read it before a change the
   * caller made or just saw (the owner gave the permission back), so the caller waits for one more
   * after it; callers that ask meanwhile share that one.
   */
  async function run(): Promise<SetupReport> {
    if (!running) return check();
    queued ??= running.then(() => {
      queued = undefined;
      return check();
    });
    return queued;
  }

  /** The check under way, or a new one. */
  function check(): Promise<SetupReport> {
    running ??= (async () => {
      let report: SetupReport;
      try {
        const input = await read();
        refused = refusedRoleChoices(input);
        report = { checkedAt: new Date().toISOString(), problems: checkBotSetup(input) };
      } catch (error) {
        report = {
          checkedAt: new Date().toISOString(),
          problems: latest?.problems ?? [],
          error: `Discord did not answer the self-check: ${(error as Error).message}`,
        };
      }
      log(latest, report);
      latest = report;
      return report;
    })().finally(() => (running = undefined));
    return running;
  }

  /**
   * The last report, re-checked when older than a minute: any check will do, so the one under way is
   * joined rather than followed by another (visitor pages and every role change ask for it).
   */
  async function current(): Promise<SetupReport> {
    if (latest && Date.now() - Date.parse(latest.checkedAt) < FRESH_MS) return latest;
    return check();
  }

  return {
    run,
    current,
    /**
     * The server's name and icon for the visitor pages: the last one read, refreshed in the
     * background when the last check is a minute old. Only the first call waits for Discord,
     * and not long: a visitor page never waits on it (null: the page names no server).
     */
    async identity(): Promise<ServerIdentity | null> {
      const stale = !latest || Date.now() - Date.parse(latest.checkedAt) >= FRESH_MS;
      if (identity) {
        if (stale) void current().catch(() => undefined);
        return identity;
      }
      const read = current()
        .then(() => identity)
        .catch(() => null);
      const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), FIRST_READ_WAIT_MS).unref());
      return Promise.race([read, timeout]);
    },
    /** The role choices refused (role-safety.ts) as of the last report, re-checked when older than a minute. */
    async refusedRoles(): Promise<RoleProblem[]> {
      await current();
      return refused;
    },
  };
}

export type BotSetupMonitor = ReturnType<typeof createBotSetupMonitor>;
