import { PermissionFlagsBits, type APIOverwrite, type APIRole } from 'discord-api-types/v10';
import type { ManagedRole } from '../modules/outbox';
import { ROLE_SLOT_NAMES, roleSafetyProblems, roleSetting, type RoleProblem } from './role-safety';
import {
  computeBasePermissions,
  computeChannelPermissions,
  permissionNames,
  type GuildPermissionContext,
  type PermissionSubject,
} from '../discord-emulator';

/**
 * What the bot needs, and why:
 * - View Channel, Send Messages, Embed Links, Read Message History: post the verification
 *   panel (an embed) and find it again among the channel's recent messages; post log lines.
 * - Manage Roles: grant and remove Verified, Limited Access and Unverified.
 * - Create Instant Invite: add a verified visitor who is not yet in the server (guilds.join).
 * - Kick Members, Ban Members: CERTAIN_ALT_ACTION=kick / ban.
 * - Manage Server: only when a lockdown pauses invites or DMs in Discord (Modify Guild Incident Actions)
 *   or raises the verification level (Modify Guild).
 */
export const CHANNEL_PERMISSIONS = {
  verification:
    PermissionFlagsBits.ViewChannel |
    PermissionFlagsBits.SendMessages |
    PermissionFlagsBits.EmbedLinks |
    PermissionFlagsBits.ReadMessageHistory,
  logs: PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages,
} as const;

export const GUILD_PERMISSIONS = PermissionFlagsBits.ManageRoles | PermissionFlagsBits.CreateInstantInvite;

export const ALT_ACTION_PERMISSIONS = { none: 0n, kick: PermissionFlagsBits.KickMembers, ban: PermissionFlagsBits.BanMembers } as const;

/** Pausing invites or DMs during a lockdown (incident actions), or raising the verification level, needs Manage Server. */
export const DISCORD_LEVER_PERMISSIONS = PermissionFlagsBits.ManageGuild;

/** The `permissions` integer of the invite URL: everything any configuration can need. */
export const INVITE_PERMISSIONS =
  CHANNEL_PERMISSIONS.verification |
  CHANNEL_PERMISSIONS.logs |
  GUILD_PERMISSIONS |
  ALT_ACTION_PERMISSIONS.kick |
  ALT_ACTION_PERMISSIONS.ban |
  DISCORD_LEVER_PERMISSIONS;

export interface SetupProblem {
  /** what is wrong, naming the permission and the channel or role */
  problem: string;
  /** what a server admin does about it */
  fix: string;
  /** what it blocks: the server-wide permissions, one channel, or one managed role (the outbox names it when a call fails with 403) */
  area: SetupArea;
}

export type SetupArea = 'server' | `channel:${keyof typeof CHANNEL_PERMISSIONS}` | `role:${ManagedRole}`;

export interface SetupCheckInput {
  guild: GuildPermissionContext;
  bot: PermissionSubject & { name: string };
  channels: Record<
    keyof typeof CHANNEL_PERMISSIONS,
    { configured: string; found: { id: string; name: string; permission_overwrites?: APIOverwrite[] } | undefined }
  >;
  /** the roles Gatekeeper gives, and the Staff role (checked only for the choices role-safety.ts refuses) */
  roles: Record<ManagedRole, { configured: string; found: APIRole | undefined }> & { staff?: { configured: string } };
  certainAltAction: keyof typeof ALT_ACTION_PERMISSIONS;
  /** a lockdown pauses invites or DMs in Discord, or raises the verification level (settings): Manage Server is needed */
  discordLevers?: boolean;
}

const list = (names: string[]) => names.map((name) => `"${name}"`).join(', ');

function checkGuildPermissions(input: SetupCheckInput): SetupProblem[] {
  const base = computeBasePermissions(input.guild, input.bot);
  const needed =
    GUILD_PERMISSIONS | ALT_ACTION_PERMISSIONS[input.certainAltAction] | (input.discordLevers ? DISCORD_LEVER_PERMISSIONS : 0n);
  const missing = permissionNames(needed & ~base);
  if (missing.length === 0) return [];
  return [
    {
      problem: `The bot lacks the server permission${missing.length > 1 ? 's' : ''} ${list(missing)}.`,
      fix: `Server Settings → Roles → "${input.bot.name}": turn on ${list(missing)} (or re-invite the bot with the invite link in the README).`,
      area: 'server',
    },
  ];
}

function checkChannel(input: SetupCheckInput, which: keyof typeof CHANNEL_PERMISSIONS): SetupProblem[] {
  const { configured, found } = input.channels[which];
  const setting = which === 'verification' ? 'DISCORD_VERIFICATION_CHANNEL' : 'DISCORD_LOGS_CHANNEL';
  if (!found) {
    return [
      {
        problem: `The ${which} channel "${configured}" does not exist or the bot cannot see it.`,
        fix: `Create #${configured}, or set ${setting} to an existing channel's name or id.`,
        area: `channel:${which}`,
      },
    ];
  }
  const permissions = computeChannelPermissions(input.guild, input.bot, found.permission_overwrites ?? []);
  const missing = permissionNames(CHANNEL_PERMISSIONS[which] & ~permissions);
  if (missing.length === 0) return [];
  return [
    {
      problem: `In #${found.name} the bot lacks ${list(missing)}.`,
      fix: `Edit #${found.name} → Permissions: add the role "${input.bot.name}" and allow ${list(missing)} (a channel overwrite denying them to @everyone or to one of the bot's roles wins over the server role).`,
      area: `channel:${which}`,
    },
  ];
}

function checkRole(input: SetupCheckInput, which: ManagedRole): SetupProblem[] {
  const { configured, found } = input.roles[which];
  if (!found) {
    return [
      {
        problem: `The ${ROLE_SLOT_NAMES[which].label} role "${configured}" does not exist in Discord (deleted or renamed): Gatekeeper cannot give or take it.`,
        fix: `Set ${roleSetting(which)} to an existing role, or create a role named "${configured}" again.`,
        area: `role:${which}`,
      },
    ];
  }
  return [];
}

/** The role choices Gatekeeper refuses (role-safety.ts), each with its fix and the slots it concerns. */
export function refusedRoleChoices(input: SetupCheckInput): RoleProblem[] {
  const configured = {
    verified: input.roles.verified.configured,
    limited: input.roles.limited.configured,
    unverified: input.roles.unverified.configured,
    staff: input.roles.staff?.configured ?? '',
  };
  return roleSafetyProblems({ guild: input.guild, bot: input.bot, configured });
}

/** What a refused role choice blocks: the first managed role it concerns (a refused Staff role alone blocks no Discord call of the outbox). */
function roleArea(slots: readonly string[]): SetupArea {
  const managed = slots.find((slot): slot is ManagedRole => slot === 'verified' || slot === 'limited' || slot === 'unverified');
  return managed ? `role:${managed}` : 'server';
}

/** Everything that would make a Discord call fail with 403, each named with its fix; empty when the server is set up right. */
export function checkBotSetup(input: SetupCheckInput): SetupProblem[] {
  const guildProblems = checkGuildPermissions(input);
  return [
    ...guildProblems,
    ...checkChannel(input, 'verification'),
    ...checkChannel(input, 'logs'),
    ...(['verified', 'limited', 'unverified'] as const).flatMap((role) => checkRole(input, role)),
    ...refusedRoleChoices(input).map(({ problem, fix, slots }) => ({ problem, fix, area: roleArea(slots) })),
  ];
}
