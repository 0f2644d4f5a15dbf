import { PermissionFlagsBits, type APIRole } from 'discord-api-types/v10';
import type { ManagedRole } from '../modules/outbox';
import { findByNameOrId } from './guild-directory';
import { highestRolePosition, permissionNames, type GuildPermissionContext, type PermissionSubject } from '../discord-emulator';

/** The four role settings: the three roles Gatekeeper gives and takes, and the Staff role. */
export type RoleSlot = ManagedRole | 'staff';
export const ROLE_SLOTS: readonly RoleSlot[] = ['verified', 'limited', 'unverified', 'staff'];

/** How each slot is named to people, and where it is set (the dashboard's setting, else the environment variable). */
export const ROLE_SLOT_NAMES: Record<
  RoleSlot,
  { label: string; settingKey: 'verifiedRole' | 'limitedRole' | 'unverifiedRole' | 'staffRole'; env: string }
> = {
  verified: { label: 'Verified', settingKey: 'verifiedRole', env: 'DISCORD_VERIFIED_ROLE' },
  limited: { label: 'Limited Access', settingKey: 'limitedRole', env: 'DISCORD_LIMITED_ROLE' },
  unverified: { label: 'Unverified', settingKey: 'unverifiedRole', env: 'DISCORD_UNVERIFIED_ROLE' },
  staff: { label: 'Staff', settingKey: 'staffRole', env: 'DISCORD_STAFF_ROLE' },
};

/**
 * Permissions no role Gatekeeper hands to newcomers may carry: with any of them, everyone who
 * verifies could run or wreck the server.
 */
export const DANGEROUS_PERMISSIONS =
  PermissionFlagsBits.Administrator |
  PermissionFlagsBits.ManageGuild |
  PermissionFlagsBits.ManageRoles |
  PermissionFlagsBits.ManageChannels |
  PermissionFlagsBits.ManageWebhooks |
  PermissionFlagsBits.ManageMessages |
  PermissionFlagsBits.KickMembers |
  PermissionFlagsBits.BanMembers |
  PermissionFlagsBits.ModerateMembers |
  PermissionFlagsBits.MentionEveryone;

export interface RoleProblem {
  /** what is wrong, naming the role and the slot */
  problem: string;
  /** what a server admin does about it */
  fix: string;
  /** the slots it concerns: Gatekeeper gives and takes none of these roles while it stands */
  slots: RoleSlot[];
}

export interface RoleSafetyInput {
  /** the guild's roles (none known: only the names can be compared), its id and owner */
  guild: GuildPermissionContext;
  /** the bot as a member (its roles), or null when not known: the hierarchy is then not checked */
  bot: (PermissionSubject & { name?: string }) | null;
  /** each slot's configured role name or id ('' when not known: that slot is left out) */
  configured: Record<RoleSlot, string>;
}

/** Where the owner changes a slot's role, in words: `the Verified role setting (dashboard Settings, or DISCORD_VERIFIED_ROLE)`. */
export const roleSetting = (slot: RoleSlot) =>
  `the ${ROLE_SLOT_NAMES[slot].label} role setting (dashboard Settings, or ${ROLE_SLOT_NAMES[slot].env})`;
const list = (names: string[]) => names.map((name) => `"${name}"`).join(', ');

/**
 * The role choices Gatekeeper refuses, each with its fix (docs/behaviour.md#dangerous-role-choices).
 * One rule for the settings page, the start-up line, the permission self-check and the outbox's guard:
 * - a role Gatekeeper gives (Verified, Limited Access, Unverified) that carries a dangerous permission,
 *   is @everyone, is managed by an integration or a bot, or sits at or above the bot's highest role;
 * - @everyone as the Staff role (every member would be staff);
 * - one role in two slots (a newcomer would become staff, or verified and unverified at once).
 * A role that does not exist is not this rule's business (the self-check names it).
 */
export function roleSafetyProblems(input: RoleSafetyInput): RoleProblem[] {
  const { guild, bot } = input;
  const found = (slot: RoleSlot): APIRole | undefined => findByNameOrId(guild.roles, input.configured[slot]);
  const problems: RoleProblem[] = [];

  for (const slot of ROLE_SLOTS) {
    const role = input.configured[slot].trim() === '' ? undefined : found(slot);
    const { label } = ROLE_SLOT_NAMES[slot];
    if (!role) continue;
    if (role.id === guild.guildId) {
      const why = slot === 'staff' ? 'every member would be staff' : 'every member holds it already, so it cannot be given or taken';
      problems.push({
        problem: `The ${label} role is @everyone: ${why}.`,
        fix: `Set ${roleSetting(slot)} to a role of its own.`,
        slots: [slot],
      });
      continue;
    }
    if (slot === 'staff') continue;
    if (role.managed) {
      problems.push({
        problem: `The ${label} role "${role.name}" is managed by an integration or a bot: nobody can give it.`,
        fix: `Set ${roleSetting(slot)} to an ordinary role.`,
        slots: [slot],
      });
      continue;
    }
    const dangerous = permissionNames(BigInt(role.permissions) & DANGEROUS_PERMISSIONS);
    if (dangerous.length > 0) {
      problems.push({
        problem: `The ${label} role "${role.name}" carries ${list(dangerous)}: everyone Gatekeeper gives it would hold ${dangerous.length > 1 ? 'them' : 'it'}.`,
        fix: `Server Settings → Roles → "${role.name}": turn off ${list(dangerous)}, or set ${roleSetting(slot)} to a role without them.`,
        slots: [slot],
      });
    }
    if (bot && bot.userId !== guild.ownerId && role.position >= highestRolePosition(guild, bot)) {
      problems.push({
        problem: `The role "${role.name}" is above or level with the bot's highest role, so the bot cannot grant or remove it.`,
        fix: `Server Settings → Roles: drag ${bot.name ? `"${bot.name}"` : "the bot's role"} above "${role.name}".`,
        slots: [slot],
      });
    }
  }

  // one role in two slots: by id when both are found, else by the configured text
  const identity = (slot: RoleSlot) => found(slot)?.id ?? `name:${input.configured[slot].trim().toLowerCase()}`;
  const set = ROLE_SLOTS.filter((slot) => input.configured[slot].trim() !== '');
  for (const [i, a] of set.entries()) {
    for (const b of set.slice(i + 1)) {
      if (identity(a) !== identity(b)) continue;
      const name = found(a)?.name ?? input.configured[a];
      problems.push({
        problem: `The role "${name}" is chosen as both the ${ROLE_SLOT_NAMES[a].label} role and the ${ROLE_SLOT_NAMES[b].label} role.`,
        fix: `Give each its own role: choose another role for the ${ROLE_SLOT_NAMES[a].label} role or the ${ROLE_SLOT_NAMES[b].label} role (dashboard Settings, or ${ROLE_SLOT_NAMES[a].env} / ${ROLE_SLOT_NAMES[b].env}).`,
        slots: [a, b],
      });
    }
  }
  return problems;
}
