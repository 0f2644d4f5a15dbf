import { DiscordAPIError } from '@discordjs/rest';
import { RESTJSONErrorCodes } from 'discord-api-types/v10';
import type { ManagedRole, OutboxEntry } from '../../modules/outbox';
import type { SetupArea, SetupProblem } from '../bot-setup-check';
import { RoleMissingError } from '../guild-directory';
import { ROLE_SLOT_NAMES, roleSetting } from '../role-safety';

/** The owner-facing sentence for a configured role that Discord no longer has. */
export function deletedRoleMessage(role: ManagedRole | 'staff'): string {
  return `The ${ROLE_SLOT_NAMES[role].label} role was deleted in Discord. Fix: set ${roleSetting(role)} to an existing role.`;
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
export function areasOf(entry: Pick<OutboxEntry, 'kind' | 'payload'>): SetupArea[] {
  if (entry.kind === 'log_message') return ['channel:logs'];
  return ['server', ...rolesOf(entry).map((role): SetupArea => `role:${role}`)];
}

export function isMissingPermission(error: unknown): boolean {
  return (
    error instanceof DiscordAPIError &&
    error.status === 403 &&
    (error.code === RESTJSONErrorCodes.MissingPermissions || error.code === RESTJSONErrorCodes.MissingAccess)
  );
}

export function isUnknownRole(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownRole;
}

/** Discord's answer in one line (`403 50013: Missing Permissions`), or what stopped the call before it was sent. */
function failureHead(error: unknown): string {
  if (error instanceof DiscordAPIError) return `${error.status} ${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** The self-check's problems that concern this action (the server's permissions, its channel, its roles). */
export function problemsFor(entry: Pick<OutboxEntry, 'kind' | 'payload'>, problems: readonly SetupProblem[]): SetupProblem[] {
  const areas = areasOf(entry);
  return problems.filter((p) => areas.includes(p.area));
}

/**
 * What to tell the owner about a 403 on this action: the self-check's problems that
 * concern it (the permission or the role order to fix), or, when the server-wide check
 * finds nothing, the one thing it cannot see: the member's own highest role.
 */
export function missingPermissionMessage(
  entry: Pick<OutboxEntry, 'kind' | 'payload'>,
  error: DiscordAPIError,
  problems: readonly SetupProblem[],
): string {
  const relevant = problemsFor(entry, problems);
  const head = failureHead(error);
  if (relevant.length > 0) return waitingForFixMessage(error, relevant);
  if (entry.kind === 'log_message')
    return `${head}. The bot cannot post in the logs channel. Fix: allow the bot's role "View Channel" and "Send Messages" there.`;
  if (entry.kind === 'verification_level')
    return `${head}. Raising the verification level during a lockdown needs the server permission "Manage Server". Fix: Server Settings → Roles → the bot's role: turn on "Manage Server", or set "Verification level during lockdown" to off in Settings.`;
  if (entry.kind === 'incident_actions')
    return `${head}. Pausing invites or DMs needs the server permission "Manage Server". Fix: Server Settings → Roles → the bot's role: turn on "Manage Server", or turn the pause off in Settings.`;
  return `${head}. The bot has every permission it needs, so this member's highest role is above or level with the bot's. Fix: Server Settings → Roles: drag the bot's role above the member's roles.`;
}

/** The note of an action parked until the owner fixes the server: Discord's answer, each problem with its fix, and that it goes on by itself. */
export function waitingForFixMessage(error: unknown, relevant: readonly SetupProblem[]): string {
  return `Waiting for a fix (${failureHead(error)}): ${relevant.map((p) => `${p.problem} Fix: ${p.fix}`).join(' ')} It runs by itself once fixed.`;
}

/** Discord refused the action for something the self-check can name: a permission, a channel, a configured role gone. */
export function needsOwnerFix(error: unknown): boolean {
  return isMissingPermission(error) || isUnknownRole(error) || error instanceof RoleMissingError;
}

/** Which configured role is gone, when the action failed on Unknown Role or the role could not be found. */
export async function missingRole(
  entry: Pick<OutboxEntry, 'kind' | 'payload'>,
  error: unknown,
  roleId: (role: ManagedRole) => Promise<string>,
): Promise<ManagedRole | 'staff' | null> {
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
