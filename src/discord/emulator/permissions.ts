import { PermissionFlagsBits, type APIRole } from 'discord-api-types/v10';

export const ALL_PERMISSIONS = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

/** Base permissions of a member from @everyone and their roles (channel overwrites are not modelled). */
export function computeBasePermissions(input: { isOwner: boolean; everyone: APIRole; roles: APIRole[] }): bigint {
  if (input.isOwner) return ALL_PERMISSIONS;
  let permissions = BigInt(input.everyone.permissions);
  for (const role of input.roles) permissions |= BigInt(role.permissions);
  if ((permissions & PermissionFlagsBits.Administrator) !== 0n) return ALL_PERMISSIONS;
  return permissions;
}

export function hasPermission(permissions: bigint, needed: bigint): boolean {
  return (permissions & needed) === needed;
}

/** The highest position among roles, @everyone being 0: Discord's hierarchy rule compares these. */
export function highestPosition(roles: APIRole[]): number {
  return roles.reduce((max, role) => Math.max(max, role.position), 0);
}
