import { PermissionFlagsBits, RESTJSONErrorCodes, type APIRole } from 'discord-api-types/v10';
import type { EmulatorContext } from './context';
import { hasPermission } from './permissions';
import { missingAccess, missingPermissions, RestError, unknownGuild } from './rest-error';
import type { MemberRecord } from './state';

/** The emulator holds one guild; any other id is unknown, as a guild the bot is not in would be. */
export function requireGuild(context: EmulatorContext, guildId: string | undefined): void {
  if (guildId !== context.state.guild.id) throw unknownGuild();
}

export function requireApplication(context: EmulatorContext, applicationId: string | undefined): void {
  if (applicationId !== context.application.id) throw missingAccess();
}

export function requireBotPermission(context: EmulatorContext, permission: bigint): void {
  const permissions = context.state.memberPermissions(context.application.botUserId);
  if (!hasPermission(permissions, permission)) throw missingPermissions();
}

/**
 * A channel the bot cannot see answers 50001 Missing Access (as Discord does: the
 * channel's content does not exist for it); one it sees but lacks a permission in
 * answers 50013 Missing Permissions. Overwrites count.
 */
export function requireBotChannelPermission(context: EmulatorContext, channelId: string, permission: bigint): void {
  const permissions = context.state.memberChannelPermissions(context.application.botUserId, channelId);
  if (!hasPermission(permissions, PermissionFlagsBits.ViewChannel)) throw missingAccess();
  if (!hasPermission(permissions, permission)) throw missingPermissions();
}

/** Discord's role hierarchy: the bot may only grant or remove roles strictly below its highest role, never managed ones. */
export function requireManageableRole(context: EmulatorContext, role: APIRole): void {
  requireBotPermission(context, PermissionFlagsBits.ManageRoles);
  if (!context.state.memberCanManageRole(context.application.botUserId, role)) throw missingPermissions();
}

/** Kick/ban/timeout: never the owner, and only members whose highest role is below the bot's. */
export function requireActionableMember(context: EmulatorContext, member: MemberRecord): void {
  const { state } = context;
  if (member.userId === state.guild.ownerId || member.userId === context.application.botUserId) throw missingPermissions();
  if (state.memberTopPosition(member.userId) >= state.memberTopPosition(context.application.botUserId)) throw missingPermissions();
}

export const invalidAccessToken = () =>
  new RestError(403, { message: 'Invalid OAuth2 access token', code: RESTJSONErrorCodes.InvalidOAuth2AccessToken });
export const userBanned = () =>
  new RestError(403, { message: 'The user is banned from this guild.', code: RESTJSONErrorCodes.UserBannedFromThisGuild });
