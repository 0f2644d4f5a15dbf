import {
  GatewayDispatchEvents,
  type APIApplicationCommand,
  type APIApplicationRoleConnectionMetadata,
  type APIBan,
  type APIGuildMember,
  type APIMessage,
  type APIRole,
  type APITextChannel,
  type APIUser,
  type GatewayDispatchPayload,
  type GuildMemberFlags,
} from 'discord-api-types/v10';
import { makeUser } from './entity-factory';
import {
  canManageRole,
  computeBasePermissions,
  computeChannelPermissions,
  highestRolePosition,
  type GuildPermissionContext,
} from './permissions';
import type { InteractionRecord } from './interaction-record';
import type { OAuthStore } from './oauth';
import { unknownChannel, unknownMember, unknownRole, unknownUser } from './rest-error';

export type DispatchData<T extends GatewayDispatchEvents> = Extract<GatewayDispatchPayload, { t: T }>['d'];
export type Dispatcher = <T extends GatewayDispatchEvents>(t: T, d: DispatchData<T>) => void;

/** A member as the API returns it, with the fields GUILD_MEMBER_UPDATE requires present. */
export type FullGuildMember = APIGuildMember & { user: APIUser; avatar: string | null; banner: string | null };

/** A bit field with no bits set (discord-api-types types flags as enums, which exclude 0). */
export const NO_MEMBER_FLAGS = 0 as GuildMemberFlags;

export interface UserRecord {
  user: APIUser;
  /** The sandbox visitor ticked "I'm on a VPN" on the authorize page (the proxy-check emulator reads it). */
  onVpn: boolean;
}

export interface MemberRecord {
  userId: string;
  roles: string[];
  nick: string | null;
  joinedAt: string;
  communicationDisabledUntil: string | null;
}

export interface GuildRecord {
  id: string;
  name: string;
  ownerId: string;
  roles: Map<string, APIRole>;
  channels: Map<string, APITextChannel>;
  members: Map<string, MemberRecord>;
  bans: Map<string, APIBan>;
  /** the guild's `incidents_data`: pauses set with Modify Guild Incident Actions, and what Discord's raid detection saw */
  incidents: GuildIncidents;
  /** the guild's verification level (0 none … 4 very high) */
  verificationLevel: number;
}

/** Discord's incidents data of a guild (ISO8601 timestamps or null). */
export interface GuildIncidents {
  invites_disabled_until: string | null;
  dms_disabled_until: string | null;
  raid_detected_at: string | null;
  dm_spam_detected_at: string | null;
}

export const NO_INCIDENTS: GuildIncidents = {
  invites_disabled_until: null,
  dms_disabled_until: null,
  raid_detected_at: null,
  dm_spam_detected_at: null,
};

/** A user's role connection to the application. */
export interface RoleConnectionRecord {
  platform_name: string | null;
  platform_username: string | null;
  metadata: Record<string, string>;
}

/** One requirement of a linked role: the metadata field `key` compared with `value` as the field's type says. */
export interface LinkedRoleRequirement {
  key: string;
  value: number;
}

/** One REST request as the emulator saw it; `token` names the caller without revealing the secret. */
export interface RequestLogEntry {
  at: number;
  method: string;
  path: string;
  /** Route template, e.g. `/guilds/:guildId/members/:userId/roles/:roleId`. */
  route: string;
  /** Rate-limit bucket key (`name:majorParameter`), null when the route is not limited. */
  bucket: string | null;
  /** `bot`, `bearer:<userId>`, `none` or `invalid`. */
  token: string;
  /** The request's User-Agent header, null without one. */
  userAgent: string | null;
  status: number;
  /** Set on 429s: whether the global limit (rather than the route bucket) was hit. */
  global?: boolean;
  /** What the answer's X-RateLimit-Limit and X-RateLimit-Reset-After said (rate-limited emulators, answers that passed the limit). */
  advertised?: { limit: number; resetAfterMs: number };
}

/** What the bot did to members, with the X-Audit-Log-Reason it gave (tests assert reasons). */
export interface AuditEntry {
  at: number;
  action:
    | 'member_add'
    | 'member_update'
    | 'member_kick'
    | 'member_ban'
    | 'member_unban'
    | 'member_role_add'
    | 'member_role_remove'
    | 'guild_incident_actions'
    | 'guild_update';
  /** a member's id, or the guild's for a change of the guild */
  targetId: string;
  /** a guild change: the body as the bot sent it */
  changes?: Record<string, unknown>;
  roleId?: string;
  reason: string | null;
}

export interface EphemeralMessage {
  message: APIMessage;
  userId: string;
}

/** Everything the emulator knows; tests read it, REST routes and the driver API change it. */
export class EmulatorState {
  readonly users = new Map<string, UserRecord>();
  readonly channelMessages = new Map<string, APIMessage[]>();
  readonly ephemeralMessages = new Map<string, EphemeralMessage>();
  readonly interactions = new Map<string, InteractionRecord>();
  /** Interaction token → interaction id, for webhook follow-ups and edits. */
  readonly interactionIdsByToken = new Map<string, string>();
  readonly globalCommands: APIApplicationCommand[] = [];
  readonly guildCommands = new Map<string, APIApplicationCommand[]>();
  readonly requestLog: RequestLogEntry[] = [];
  readonly auditLog: AuditEntry[] = [];
  readonly oauth: OAuthStore = { codes: new Map(), accessTokens: new Map(), refreshTokens: new Map() };
  /** the application's role-connection metadata (PUT /applications/{id}/role-connections/metadata) */
  roleConnectionMetadata: APIApplicationRoleConnectionMetadata[] = [];
  /** each user's role connection to the application, as the app wrote it with the user's token */
  readonly roleConnections = new Map<string, RoleConnectionRecord>();
  /** linked roles: a role's requirements on the application's metadata (set in the guild's role settings on Discord) */
  readonly linkedRoles = new Map<string, LinkedRoleRequirement[]>();
  /** Every 429 the emulator answered; tests assert this stays 0 when the client honours the headers. */
  rateLimitHits = 0;
  private dispatcher: Dispatcher = () => undefined;
  private changeListeners = new Set<() => void>();

  constructor(
    readonly guild: GuildRecord,
    readonly botUserId: string,
  ) {}

  setDispatcher(dispatcher: Dispatcher): void {
    this.dispatcher = dispatcher;
  }

  dispatch<T extends GatewayDispatchEvents>(t: T, d: DispatchData<T>): void {
    this.dispatcher(t, d);
    this.notifyChange();
  }

  /** Subscribe to any change (messages, members, interaction replies); the sandbox view long-polls with it. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  notifyChange(): void {
    for (const listener of [...this.changeListeners]) listener();
  }

  // ── users ────────────────────────────────────────────────────────────────

  get botUser(): APIUser {
    return this.requireUser(this.botUserId);
  }

  addUser(record: UserRecord): APIUser {
    this.users.set(record.user.id, record);
    return record.user;
  }

  /** A new fake user (snowflake dated now unless `createdAt` says otherwise). */
  createUser(input: {
    username: string;
    globalName?: string;
    avatar?: string | null;
    bot?: boolean;
    onVpn?: boolean;
    createdAt?: Date;
  }): APIUser {
    const user = makeUser({
      username: input.username,
      globalName: input.globalName ?? null,
      avatar: input.avatar ?? null,
      bot: input.bot ?? false,
      ...(input.createdAt ? { createdAt: input.createdAt.getTime() } : {}),
    });
    return this.addUser({ user, onVpn: input.onVpn ?? false });
  }

  requireUser(id: string): APIUser {
    const record = this.users.get(id);
    if (!record) throw unknownUser();
    return record.user;
  }

  findUserByName(username: string): APIUser | undefined {
    const wanted = username.toLowerCase();
    for (const { user } of this.users.values()) if (user.username.toLowerCase() === wanted) return user;
    return undefined;
  }

  // ── guild structure ───────────────────────────────────────────────────────

  get everyoneRole(): APIRole {
    return this.requireRole(this.guild.id);
  }

  requireRole(id: string): APIRole {
    const role = this.guild.roles.get(id);
    if (!role) throw unknownRole();
    return role;
  }

  requireChannel(id: string): APITextChannel {
    const channel = this.guild.channels.get(id);
    if (!channel) throw unknownChannel();
    return channel;
  }

  roleByName(name: string): APIRole | undefined {
    for (const role of this.guild.roles.values()) if (role.name === name) return role;
    return undefined;
  }

  channelByName(name: string): APITextChannel | undefined {
    for (const channel of this.guild.channels.values()) if (channel.name === name) return channel;
    return undefined;
  }

  sortedRoles(): APIRole[] {
    return [...this.guild.roles.values()].sort((a, b) => a.position - b.position);
  }

  // ── members ───────────────────────────────────────────────────────────────

  getMember(userId: string): MemberRecord | undefined {
    return this.guild.members.get(userId);
  }

  requireMember(userId: string): MemberRecord {
    const member = this.guild.members.get(userId);
    if (!member) throw unknownMember();
    return member;
  }

  /** Members with their role ids and names, for assertions. */
  listMembers(): Array<{ userId: string; username: string; roles: string[]; roleNames: string[] }> {
    return [...this.guild.members.values()].map((member) => ({
      userId: member.userId,
      username: this.requireUser(member.userId).username,
      roles: [...member.roles],
      roleNames: member.roles.map((id) => this.guild.roles.get(id)?.name ?? id),
    }));
  }

  memberRoleNames(userId: string): string[] {
    return this.getMember(userId)?.roles.map((id) => this.guild.roles.get(id)?.name ?? id) ?? [];
  }

  /** The guild as the permission algorithm reads it. */
  permissionContext(): GuildPermissionContext {
    return { guildId: this.guild.id, ownerId: this.guild.ownerId, roles: [...this.guild.roles.values()] };
  }

  /** Guild-wide permissions (@everyone, roles, Administrator, owner). */
  memberPermissions(userId: string): bigint {
    const member = this.requireMember(userId);
    return computeBasePermissions(this.permissionContext(), { userId, roleIds: member.roles });
  }

  /** Permissions in one channel, its overwrites applied. */
  memberChannelPermissions(userId: string, channelId: string): bigint {
    const member = this.requireMember(userId);
    const channel = this.requireChannel(channelId);
    return computeChannelPermissions(this.permissionContext(), { userId, roleIds: member.roles }, channel.permission_overwrites ?? []);
  }

  /** Whether the member may grant or remove the role (Manage Roles and the role hierarchy). */
  memberCanManageRole(userId: string, role: APIRole): boolean {
    return canManageRole(this.permissionContext(), { userId, roleIds: this.requireMember(userId).roles }, role);
  }

  memberTopPosition(userId: string): number {
    return highestRolePosition(this.permissionContext(), { userId, roleIds: this.requireMember(userId).roles });
  }

  memberRoles(userId: string): APIRole[] {
    return this.requireMember(userId)
      .roles.map((id) => this.guild.roles.get(id))
      .filter((role): role is APIRole => role !== undefined);
  }

  toApiMember(member: MemberRecord): FullGuildMember {
    return {
      user: this.requireUser(member.userId),
      nick: member.nick,
      avatar: null,
      banner: null,
      roles: [...member.roles],
      joined_at: member.joinedAt,
      premium_since: null,
      deaf: false,
      mute: false,
      flags: NO_MEMBER_FLAGS,
      pending: false,
      communication_disabled_until: member.communicationDisabledUntil,
    };
  }

  addMember(userId: string, roles: string[] = [], nick: string | null = null): MemberRecord {
    this.requireUser(userId);
    for (const roleId of roles) this.requireRole(roleId);
    const member: MemberRecord = {
      userId,
      roles: unique(roles),
      nick,
      joinedAt: new Date().toISOString(),
      communicationDisabledUntil: null,
    };
    this.guild.members.set(userId, member);
    this.dispatch(GatewayDispatchEvents.GuildMemberAdd, { ...this.toApiMember(member), guild_id: this.guild.id });
    return member;
  }

  /** Replaces a member's roles and nick, dispatching GUILD_MEMBER_UPDATE when something changed. */
  updateMember(
    userId: string,
    change: { roles?: string[]; nick?: string | null; communicationDisabledUntil?: string | null },
  ): MemberRecord {
    const member = this.requireMember(userId);
    const before = JSON.stringify(member);
    if (change.roles) {
      for (const roleId of change.roles) this.requireRole(roleId);
      member.roles = unique(change.roles.filter((id) => id !== this.guild.id));
    }
    if (change.nick !== undefined) member.nick = change.nick;
    if (change.communicationDisabledUntil !== undefined) member.communicationDisabledUntil = change.communicationDisabledUntil;
    if (JSON.stringify(member) !== before) {
      const api = this.toApiMember(member);
      this.dispatch(GatewayDispatchEvents.GuildMemberUpdate, { ...api, guild_id: this.guild.id, joined_at: member.joinedAt });
    }
    return member;
  }

  /** Deletes a role as a server admin does in Discord: gone from the guild and from every member who held it. */
  deleteRole(roleId: string): void {
    this.requireRole(roleId);
    if (roleId === this.guild.id) throw new Error('@everyone cannot be deleted');
    this.guild.roles.delete(roleId);
    for (const member of this.guild.members.values()) member.roles = member.roles.filter((id) => id !== roleId);
    this.dispatch(GatewayDispatchEvents.GuildRoleDelete, { guild_id: this.guild.id, role_id: roleId });
  }

  removeMember(userId: string): void {
    this.requireMember(userId);
    this.guild.members.delete(userId);
    this.dispatch(GatewayDispatchEvents.GuildMemberRemove, { guild_id: this.guild.id, user: this.requireUser(userId) });
  }

  ban(userId: string, reason: string | null): void {
    const user = this.requireUser(userId);
    this.guild.bans.set(userId, { user, reason });
    if (this.guild.members.has(userId)) this.removeMember(userId);
    this.dispatch(GatewayDispatchEvents.GuildBanAdd, { guild_id: this.guild.id, user });
  }

  unban(userId: string): void {
    this.guild.bans.delete(userId);
    this.dispatch(GatewayDispatchEvents.GuildBanRemove, { guild_id: this.guild.id, user: this.requireUser(userId) });
  }

  // ── messages ──────────────────────────────────────────────────────────────

  /** Non-ephemeral messages of a channel, oldest first. */
  messages(channelId: string): APIMessage[] {
    return this.channelMessages.get(channelId) ?? [];
  }

  findMessage(channelId: string, messageId: string): APIMessage | undefined {
    return this.messages(channelId).find((message) => message.id === messageId) ?? this.ephemeralMessages.get(messageId)?.message;
  }

  /** Stores a message; ephemeral ones are kept apart and never dispatched, as on Discord. */
  postMessage(message: APIMessage, ephemeralFor: string | null = null): APIMessage {
    if (ephemeralFor) {
      this.ephemeralMessages.set(message.id, { message, userId: ephemeralFor });
      this.notifyChange();
      return message;
    }
    const list = this.channelMessages.get(message.channel_id) ?? [];
    list.push(message);
    this.channelMessages.set(message.channel_id, list);
    this.dispatch(GatewayDispatchEvents.MessageCreate, { ...message, guild_id: this.guild.id, mentions: message.mentions });
    return message;
  }

  /** Replaces a stored message in place (same id), dispatching MESSAGE_UPDATE for visible ones. */
  replaceMessage(message: APIMessage): APIMessage {
    const ephemeral = this.ephemeralMessages.get(message.id);
    if (ephemeral) {
      ephemeral.message = message;
      this.notifyChange();
      return message;
    }
    const list = this.channelMessages.get(message.channel_id) ?? [];
    const index = list.findIndex((existing) => existing.id === message.id);
    if (index >= 0) list[index] = message;
    this.dispatch(GatewayDispatchEvents.MessageUpdate, { ...message, guild_id: this.guild.id });
    return message;
  }

  deleteMessage(channelId: string, messageId: string): void {
    if (this.ephemeralMessages.delete(messageId)) {
      this.notifyChange();
      return;
    }
    const list = this.channelMessages.get(channelId) ?? [];
    const index = list.findIndex((existing) => existing.id === messageId);
    if (index >= 0) list.splice(index, 1);
    this.dispatch(GatewayDispatchEvents.MessageDelete, { id: messageId, channel_id: channelId, guild_id: this.guild.id });
  }

  // ── commands ──────────────────────────────────────────────────────────────

  commandsFor(guildId: string | null): APIApplicationCommand[] {
    if (guildId === null) return this.globalCommands;
    const list = this.guildCommands.get(guildId) ?? [];
    this.guildCommands.set(guildId, list);
    return list;
  }

  /** A command the member would see in the guild: guild commands shadow global ones of the same name. */
  findCommand(name: string, guildId: string): APIApplicationCommand | undefined {
    return this.commandsFor(guildId).find((c) => c.name === name) ?? this.globalCommands.find((c) => c.name === name);
  }

  // ── request log ───────────────────────────────────────────────────────────

  requests(filter: RequestFilter = {}): RequestLogEntry[] {
    return this.requestLog.filter(
      (entry) =>
        (filter.route === undefined || (typeof filter.route === 'string' ? entry.route === filter.route : filter.route.test(entry.path))) &&
        (filter.method === undefined || entry.method === filter.method.toUpperCase()) &&
        (filter.token === undefined || entry.token === filter.token) &&
        (filter.status === undefined || entry.status === filter.status) &&
        (filter.since === undefined || entry.at >= filter.since),
    );
  }

  /** The most requests matching `filter` that the emulator served inside any sliding window of `windowMs` (strictest measure). */
  maxRequestsInWindow(filter: RequestFilter, windowMs: number): number {
    const times = servedTimes(this, filter);
    let max = 0;
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while ((times[end] ?? 0) - (times[start] ?? 0) >= windowMs) start++;
      max = Math.max(max, end - start + 1);
    }
    return max;
  }

  /**
   * The most requests matching `filter` served in one window as Discord and the emulator count them: a window opens with
   * the first request after the previous one closed and lasts `windowMs`.
   */
  maxRequestsPerFixedWindow(filter: RequestFilter, windowMs: number): number {
    let max = 0;
    let windowEnd = Number.NEGATIVE_INFINITY;
    let count = 0;
    for (const at of servedTimes(this, filter)) {
      if (at >= windowEnd) {
        windowEnd = at + windowMs;
        count = 0;
      }
      max = Math.max(max, ++count);
    }
    return max;
  }
}

/** Served (non-429) request times matching a filter, sorted. */
function servedTimes(state: EmulatorState, filter: RequestFilter): number[] {
  return state
    .requests(filter)
    .filter((entry) => entry.status !== 429)
    .map((entry) => entry.at)
    .sort((a, b) => a - b);
}

export type RequestFilter = { route?: string | RegExp; method?: string; token?: string; status?: number; since?: number };

export function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
