import { DiscordAPIError, type REST } from '@discordjs/rest';
import { RESTJSONErrorCodes, Routes, type APIGuildMember, type RESTPatchAPIGuildMemberJSONBody, type RESTPutAPIGuildMemberJSONBody } from 'discord-api-types/v10';
import type { ManagedRole, OutboxEntry } from '../../modules/outbox/outbox.types';
import { openSecret } from '../../modules/outbox/sealed-secret';
import { bucketRoute, type BucketWatch } from '../bucket-watch';
import type { GuildDirectory } from '../guild-directory';
import { createGuildMemberCache, type GuildMemberCache } from '../guild-member-cache';
import { isGuildMember, nextMemberRoles, sameRoles } from './member-roles';

/**
 * Discord's length limit for a message's content, 2,000 characters. JavaScript counts UTF-16
 * units, never fewer than the characters Discord counts, so a string within it always fits.
 */
export const MAX_MESSAGE = 2000;

/** Log lines packed into messages: each message's text and the lines (by index) it carries. */
export interface PackedMessage {
  content: string;
  lines: number[];
}

/**
 * Merges log lines into as few messages as fit Discord's length limit, in order (a line
 * longer than a message is cut to one). Every message but the last is full: the next line
 * did not fit in it.
 */
export function packLogMessages(lines: readonly string[]): PackedMessage[] {
  const messages: PackedMessage[] = [];
  lines.forEach((raw, index) => {
    const line = raw.slice(0, MAX_MESSAGE);
    const last = messages.at(-1);
    if (last !== undefined && last.content.length + line.length + 1 <= MAX_MESSAGE) {
      last.content = `${last.content}\n${line}`;
      last.lines.push(index);
    } else messages.push({ content: line, lines: [index] });
  });
  return messages;
}

/** Merges log lines into as few messages as fit Discord's length limit, in order. */
export function packLogLines(lines: string[]): string[] {
  return packLogMessages(lines).map((m) => m.content);
}

/** Discord's "Unknown Member": the user is not (or no longer) in the guild. */
function isUnknownMember(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMember;
}

/**
 * The Discord calls behind each outbox action, as few as the bot's knowledge allows
 * (`members`: what the gateway and earlier answers showed of each member's roles).
 *
 * - Join, user known to be in the guild: no Add Guild Member; each role they lack is one
 *   Add Guild Member Role call (none when they hold it). Discord answering Unknown Member
 *   (they left since) falls back to the join below.
 * - Join, otherwise: one Add Guild Member carrying the roles (201 with the member). A 204
 *   means they were in the guild already and Discord ignored `roles`: one role call each.
 * - Role change, roles known: one Modify Guild Member with the whole new role list, no read
 *   first; none when nothing changes. Or, when the bucket watch says Modify Guild Member's
 *   bucket is spent and the role routes' (a separate bucket) would let the change start
 *   sooner, one Add / Remove Guild Member Role per role that changes (at most two): a raid's
 *   role changes then flow through both buckets. Roles unknown: read the member, then one
 *   Modify Guild Member.
 */
export function createDiscordActions(deps: {
  rest: REST;
  directory: GuildDirectory;
  sealKey: Buffer;
  members?: GuildMemberCache;
  buckets?: BucketWatch;
  /** hands a joined member's access token over for revocation (in the background: it never fails or delays the join) */
  revokeAccessToken?: (accessToken: string) => void;
}) {
  const { rest, directory } = deps;
  const members = deps.members ?? createGuildMemberCache({ maxEntries: 0 });
  const roleIds = (roles: unknown) => Promise.all(((roles as ManagedRole[] | undefined) ?? []).map((r) => directory.roleId(r)));

  async function addRoles(userId: string, ids: readonly string[]): Promise<void> {
    for (const roleId of ids) {
      const path = Routes.guildMemberRole(directory.guildId, userId, roleId);
      await sent('PUT', path, () => rest.put(path));
    }
  }

  async function join(userId: string, sealedSecret: string | null, roles: unknown): Promise<void> {
    const ids = await roleIds(roles);
    const known = members.roles(userId);
    if (known) {
      const missing = ids.filter((id) => !known.includes(id));
      try {
        await addRoles(userId, missing);
        members.remember(userId, [...known, ...missing]);
        return;
      } catch (error) {
        if (!isUnknownMember(error)) throw error;
        members.forget(userId); // left since we saw them: join them after all
      }
    }
    if (!sealedSecret) throw new Error('the access token is gone (already used)');
    const body: RESTPutAPIGuildMemberJSONBody = { access_token: openSecret(deps.sealKey, sealedSecret), roles: ids };
    const answer = await rest.put(Routes.guildMember(directory.guildId, userId), { body });
    if (isGuildMember(answer)) {
      members.remember(userId, answer.roles);
      return;
    }
    // 204: already a member, and Discord ignored `roles`; role calls add them without touching others
    await addRoles(userId, ids);
  }

  async function updateRoles(userId: string, payload: Record<string, unknown>): Promise<void> {
    const change = { add: await roleIds(payload.add), remove: await roleIds(payload.remove) };
    const known = members.roles(userId);
    const current = known ?? ((await rest.get(Routes.guildMember(directory.guildId, userId))) as APIGuildMember).roles;
    const roles = nextMemberRoles(current, change);
    if (sameRoles(roles, current)) return;
    try {
      if (known && roleRoutesFirst(userId, current, roles)) await changeRoleByRole(userId, current, roles);
      else {
        const body: RESTPatchAPIGuildMemberJSONBody = { roles };
        const answer = await sent('PATCH', Routes.guildMember(directory.guildId, userId), () => rest.patch(Routes.guildMember(directory.guildId, userId), { body }));
        members.remember(userId, isGuildMember(answer) ? answer.roles : roles);
        return;
      }
    } catch (error) {
      members.forget(userId);
      throw error;
    }
    members.remember(userId, roles);
  }

  /** A call counted by the bucket watch while it is on its way. */
  async function sent<T>(method: string, path: string, call: () => Promise<T>): Promise<T> {
    const done = deps.buckets?.begin(method, bucketRoute(path));
    try {
      return await call();
    } finally {
      done?.();
    }
  }

  /** The role calls that take a member from `current` to `next`: gains first, so they are never left with neither role. */
  function roleCalls(userId: string, current: readonly string[], next: readonly string[]) {
    const gained = next.filter((id) => !current.includes(id)).map((roleId) => ({ method: 'PUT' as const, path: Routes.guildMemberRole(directory.guildId, userId, roleId) }));
    const lost = current.filter((id) => !next.includes(id)).map((roleId) => ({ method: 'DELETE' as const, path: Routes.guildMemberRole(directory.guildId, userId, roleId) }));
    return [...gained, ...lost];
  }

  /**
   * Whether this change should go role by role rather than as one Modify Guild Member: only
   * when the watch knows Modify Guild Member's bucket would make it wait and the role
   * routes' bucket has room for all its calls (at most two) now. A role route the bot
   * has not called yet is tried by one change at a time (its answer teaches the bucket),
   * never by several at once: until then the watch cannot tell how many changes the bucket
   * has room for, and the changes sent meanwhile would wait behind the first call (the bot's
   * REST client sends a route's first call alone, `first-call-gate.ts`) with their worker
   * slots held.
   */
  function roleRoutesFirst(userId: string, current: readonly string[], next: readonly string[]): boolean {
    const watch = deps.buckets;
    if (!watch) return false;
    const calls = roleCalls(userId, current, next);
    if (calls.length === 0 || calls.length > 2) return false;
    const now = Date.now();
    const patchAt = watch.readyAt([{ method: 'PATCH', route: bucketRoute(Routes.guildMember(directory.guildId, userId)), calls: 1 }], now);
    if (patchAt === undefined || patchAt <= now) return false;
    const requests = calls.map((c) => ({ method: c.method, route: bucketRoute(c.path), calls: 1 }));
    const rolesAt = watch.readyAt(requests, now);
    // only with room for all its calls now: a change queued for a later window would put its first
    // call in the REST client's queue ahead of the second calls of changes already under way, and
    // that window would fill with first calls while the second ones wait another (P4 saw it)
    if (rolesAt !== undefined) return rolesAt <= now;
    // not learnt yet: one change at a time finds out
    return !probing && requests.every((r) => watch.outstanding(r.method, r.route) === 0);
  }

  /**
   * A change going role by role (also while a role route's bucket is not known yet: `probing`).
   * All its calls count against the bucket from the moment it is chosen, not each as it is
   * sent: the second call waits for the first, and a change chosen meanwhile must not count
   * on room the second call will take. Counted one by one, ten changes each saw room for
   * their two calls in a bucket of ten, sent ten first calls, and waited a whole window for
   * the second ones with every worker slot held, so Modify Guild Member sat idle every
   * other window (P4: its bucket used half the time, the role bucket's calls doubled).
   */
  let probing = false;
  async function changeRoleByRole(userId: string, current: readonly string[], next: readonly string[]): Promise<void> {
    const calls = roleCalls(userId, current, next);
    const probe = deps.buckets?.readyAt(calls.map((c) => ({ method: c.method, route: bucketRoute(c.path), calls: 1 }))) === undefined;
    if (probe) probing = true;
    const counted = calls.map((call) => deps.buckets?.begin(call.method, bucketRoute(call.path)));
    try {
      for (const [i, call] of calls.entries()) {
        try {
          await (call.method === 'PUT' ? rest.put(call.path) : rest.delete(call.path));
        } finally {
          counted[i]?.();
        }
      }
    } finally {
      for (const done of counted) done?.(); // calls never sent (an earlier one failed) stop counting too
      if (probe) probing = false;
    }
  }

  /** A single role given or taken: Discord changes only that role, so what we knew stays true plus the change. */
  async function changeOneRole(userId: string, role: ManagedRole, give: boolean): Promise<void> {
    const roleId = await directory.roleId(role);
    const route = Routes.guildMemberRole(directory.guildId, userId, roleId);
    try {
      if (give) await rest.put(route);
      else await rest.delete(route);
    } catch (error) {
      members.forget(userId);
      throw error;
    }
    const known = members.roles(userId);
    if (known) members.remember(userId, give ? [...known, roleId] : known.filter((id) => id !== roleId));
  }

  /** One message in the logs channel (mentions shown, nobody pinged). */
  async function postMessage(content: string): Promise<void> {
    const channelId = await directory.channelId('logs');
    await rest.post(Routes.channelMessages(channelId), { body: { content, allowed_mentions: { parse: [] } } });
  }

  async function postLog(lines: string[]): Promise<void> {
    for (const content of packLogLines(lines)) await postMessage(content);
  }

  /**
   * After a join that worked (added, or found in the server already and the token never used):
   * the visitor's access token has no further use, so Discord is asked to revoke it. The outbox
   * erases its sealed copy when it records the join done.
   */
  function revokeUsedToken(sealedSecret: string | null): void {
    if (!sealedSecret || !deps.revokeAccessToken) return;
    let accessToken: string;
    try {
      accessToken = openSecret(deps.sealKey, sealedSecret);
    } catch {
      return; // not readable with this key: no token to revoke, and the join is done
    }
    deps.revokeAccessToken(accessToken);
  }

  async function run(entry: OutboxEntry & { sealedSecret: string | null }): Promise<void> {
    const guildId = directory.guildId;
    const userId = entry.discordId ?? '';
    const payload = entry.payload;
    switch (entry.kind) {
      case 'add_guild_member':
        await join(userId, entry.sealedSecret, payload.roles);
        revokeUsedToken(entry.sealedSecret);
        return;
      case 'update_roles':
        return updateRoles(userId, payload);
      case 'add_role':
        return changeOneRole(userId, payload.role as ManagedRole, true);
      case 'remove_role':
        return changeOneRole(userId, payload.role as ManagedRole, false);
      case 'kick':
        members.forget(userId);
        await rest.delete(Routes.guildMember(guildId, userId), { reason: String(payload.reason ?? 'Gatekeeper') });
        return;
      case 'ban':
        members.forget(userId);
        await rest.put(Routes.guildBan(guildId, userId), { body: {}, reason: String(payload.reason ?? 'Gatekeeper') });
        return;
      case 'unban':
        try {
          await rest.delete(Routes.guildBan(guildId, userId), { reason: String(payload.reason ?? 'Gatekeeper') });
        } catch (error) {
          // not banned (the certain-alt action was none or kick, or staff lifted it already): nothing to undo
          if (!(error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownBan)) throw error;
        }
        return;
      case 'log_message':
        return postLog([String(payload.text ?? '')]);
    }
  }

  return { run, postLog, postMessage };
}

export type DiscordActions = ReturnType<typeof createDiscordActions>;
