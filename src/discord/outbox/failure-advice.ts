import { DiscordAPIError } from '@discordjs/rest';
import { RESTJSONErrorCodes } from 'discord-api-types/v10';
import type { ManagedRole, OutboxEntry } from '../../modules/outbox/outbox.types';
import type { SetupArea, SetupProblem } from '../bot-setup-check';
import { RoleMissingError } from '../guild-directory';

const ROLE_LABELS: Record<ManagedRole | 'staff', string> = { verified: 'Verified', limited: 'Limited Access', unverified: 'Unverified', staff: 'Staff' };

/** The owner-facing sentence for a configured role that Discord no longer has. */
export function deletedRoleMessage(role: ManagedRole | 'staff'): string {
  return `the ${ROLE_LABELS[role]} role was deleted in Discord: choose another in Settings`;
}

/** The managed roles an action grants or removes. */
export function rolesOf(entry: Pick<OutboxEntry, 'kind' | 'payload'>): ManagedRole[] {
  const list = (value: unknown) => (Array.isArray(value) ? (value as ManagedRole[]) : []);
  switch (entry.kind) {
    case 'add_guild_member':
      return list(entry.payload.roles);
    case 'update_roles':
      return [...list(entry.payload.add), ...list(entry.payload.remove)];
    case 'add_role':
    case 'remove_role':
      return [entry.payload.role as ManagedRole];
    default:
      return [];
  }
}

/** The parts of the server a failed action needed, in the self-check's terms. */
function areasOf(entry: Pick<OutboxEntry, 'kind' | 'payload'>): SetupArea[] {
  if (entry.kind === 'log_message') return ['channel:logs'];
  return ['server', ...rolesOf(entry).map((role): SetupArea => `role:${role}`)];
}

export function isMissingPermission(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.status === 403 && (error.code === RESTJSONErrorCodes.MissingPermissions || error.code === RESTJSONErrorCodes.MissingAccess);
}

export function isUnknownRole(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownRole;
}

/**
 * What to tell the owner about a 403 on this action: the self-check's problems that
 * concern it (the permission or the role order to fix), or, when the server-wide check
 * finds nothing, the one thing it cannot see: the member's own highest role.
 */
export function missingPermissionMessage(entry: Pick<OutboxEntry, 'kind' | 'payload'>, error: DiscordAPIError, problems: readonly SetupProblem[]): string {
  const areas = areasOf(entry);
  const relevant = problems.filter((p) => areas.includes(p.area));
  const head = `${error.status} ${error.code}: ${error.message}`;
  if (relevant.length > 0) return `${head}. ${relevant.map((p) => `${p.problem} Fix: ${p.fix}`).join(' ')}`;
  if (entry.kind === 'log_message') return `${head}. The bot cannot post in the logs channel. Fix: allow the bot's role "View Channel" and "Send Messages" there.`;
  if (entry.kind === 'incident_actions') return `${head}. Pausing invites or DMs needs the server permission "Manage Server". Fix: Server Settings → Roles → the bot's role: turn on "Manage Server", or turn the pause off in Settings.`;
  return `${head}. The bot has every permission it needs, so this member's highest role is above or level with the bot's. Fix: Server Settings → Roles: drag the bot's role above the member's roles.`;
}

/** Which configured role is gone, when the action failed on Unknown Role or the role could not be found. */
export async function missingRole(entry: Pick<OutboxEntry, 'kind' | 'payload'>, error: unknown, roleId: (role: ManagedRole) => Promise<string>): Promise<ManagedRole | 'staff' | null> {
  if (error instanceof RoleMissingError) return error.role;
  if (!isUnknownRole(error)) return null;
  for (const role of rolesOf(entry)) {
    try {
      await roleId(role);
    } catch (lookup) {
      if (lookup instanceof RoleMissingError) return role;
    }
  }
  return null;
}
