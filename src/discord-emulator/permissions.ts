import { OverwriteType, PermissionFlagsBits, type APIOverwrite, type APIRole } from 'discord-api-types/v10';

/**
 * Discord's permission algorithm, shared by the emulator (which enforces it) and the
 * bot's self-check (which predicts it). Pure: it only reads the roles, overwrites and
 * member it is given.
 */

export const ALL_PERMISSIONS = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

export interface PermissionSubject {
  userId: string;
  /** role ids the member holds (without @everyone) */
  roleIds: readonly string[];
}

export interface GuildPermissionContext {
  guildId: string;
  ownerId: string;
  /** every role of the guild, @everyone (whose id is the guild id) included */
  roles: readonly APIRole[];
}

function everyoneRole(guild: GuildPermissionContext): APIRole | undefined {
  return guild.roles.find((role) => role.id === guild.guildId);
}

function memberRoles(guild: GuildPermissionContext, member: PermissionSubject): APIRole[] {
  const held = new Set(member.roleIds);
  return guild.roles.filter((role) => role.id !== guild.guildId && held.has(role.id));
}

/** Guild-wide permissions: @everyone's plus every role's; the owner and Administrator get everything. */
export function computeBasePermissions(guild: GuildPermissionContext, member: PermissionSubject): bigint {
  if (member.userId === guild.ownerId) return ALL_PERMISSIONS;
  let permissions = BigInt(everyoneRole(guild)?.permissions ?? '0');
  for (const role of memberRoles(guild, member)) permissions |= BigInt(role.permissions);
  if ((permissions & PermissionFlagsBits.Administrator) !== 0n) return ALL_PERMISSIONS;
  return permissions;
}

/**
 * Permissions in one channel. Overwrites apply in a fixed order, each layer replacing
 * what it names: the @everyone overwrite, then all the member's role overwrites
 * combined (denies first, then allows, so one role's allow beats another's deny), then
 * the overwrite for the member themself. Administrator is never overwritten.
 */
export function computeChannelPermissions(
  guild: GuildPermissionContext,
  member: PermissionSubject,
  overwrites: readonly APIOverwrite[],
): bigint {
  const base = computeBasePermissions(guild, member);
  if (base === ALL_PERMISSIONS) return ALL_PERMISSIONS;
  let permissions = base;
  const everyone = overwrites.find((o) => o.type === OverwriteType.Role && o.id === guild.guildId);
  if (everyone) permissions = (permissions & ~BigInt(everyone.deny)) | BigInt(everyone.allow);
  const held = new Set(member.roleIds);
  let allow = 0n;
  let deny = 0n;
  for (const overwrite of overwrites) {
    if (overwrite.type !== OverwriteType.Role || overwrite.id === guild.guildId || !held.has(overwrite.id)) continue;
    allow |= BigInt(overwrite.allow);
    deny |= BigInt(overwrite.deny);
  }
  permissions = (permissions & ~deny) | allow;
  const own = overwrites.find((o) => o.type === OverwriteType.Member && o.id === member.userId);
  if (own) permissions = (permissions & ~BigInt(own.deny)) | BigInt(own.allow);
  // Without View Channel nothing else in the channel is usable.
  if ((permissions & PermissionFlagsBits.ViewChannel) === 0n) return 0n;
  return permissions;
}

export function hasPermission(permissions: bigint, needed: bigint): boolean {
  return (permissions & needed) === needed;
}

/** The highest position among the member's roles, @everyone being 0: the role hierarchy compares these. */
export function highestRolePosition(guild: GuildPermissionContext, member: PermissionSubject): number {
  return memberRoles(guild, member).reduce((max, role) => Math.max(max, role.position), 0);
}

/**
 * Whether the member may grant or remove `role`: Manage Roles, and the role strictly
 * below the member's highest role (the owner excepted); never @everyone or a role an
 * integration manages.
 */
export function canManageRole(guild: GuildPermissionContext, member: PermissionSubject, role: APIRole): boolean {
  if (role.id === guild.guildId || role.managed) return false;
  if (!hasPermission(computeBasePermissions(guild, member), PermissionFlagsBits.ManageRoles)) return false;
  if (member.userId === guild.ownerId) return true;
  return role.position < highestRolePosition(guild, member);
}

/** Readable names of permission bits ("View Channel"), in bit order. */
/** Permissions Discord's app names otherwise than the API's flag does. */
const DISCORD_UI_NAMES: Record<string, string> = { ManageGuild: 'Manage Server' };

export function permissionNames(bits: bigint): string[] {
  return Object.entries(PermissionFlagsBits)
    .filter(([, bit]) => (bits & bit) !== 0n)
    .map(([name]) => DISCORD_UI_NAMES[name] ?? name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/([A-Z])([A-Z][a-z])/g, '$1 $2'));
}
