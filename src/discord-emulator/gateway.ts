import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  GatewayCloseCodes,
  GatewayDispatchEvents,
  GatewayIntentBits,
  GatewayOpcodes,
  type GatewayDispatchPayload,
  type GatewayIdentifyData,
  type GatewayReceivePayload,
  type GatewayRequestGuildMembersData,
  type GatewayResumeData,
} from 'discord-api-types/v10';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { APPLICATION_FLAGS } from './application-object';
import type { EmulatorContext } from './context';
import { toGuildCreate } from './guild-object';
import type { DispatchData } from './state';

const ALL_INTENTS = Object.values(GatewayIntentBits)
  .filter((value): value is number => typeof value === 'number')
  .reduce((all, bit) => all | bit, 0);

/** Which intent a dispatch needs; events not listed (READY, INTERACTION_CREATE, …) always go out. */
const EVENT_INTENTS: Partial<Record<GatewayDispatchEvents, number>> = {
  [GatewayDispatchEvents.GuildCreate]: GatewayIntentBits.Guilds,
  [GatewayDispatchEvents.GuildUpdate]: GatewayIntentBits.Guilds,
  [GatewayDispatchEvents.GuildDelete]: GatewayIntentBits.Guilds,
  [GatewayDispatchEvents.GuildRoleCreate]: GatewayIntentBits.Guilds,
  [GatewayDispatchEvents.GuildRoleUpdate]: GatewayIntentBits.Guilds,
  [GatewayDispatchEvents.GuildRoleDelete]: GatewayIntentBits.Guilds,
  [GatewayDispatchEvents.ChannelCreate]: GatewayIntentBits.Guilds,
  [GatewayDispatchEvents.ChannelUpdate]: GatewayIntentBits.Guilds,
  [GatewayDispatchEvents.ChannelDelete]: GatewayIntentBits.Guilds,
  [GatewayDispatchEvents.GuildMemberAdd]: GatewayIntentBits.GuildMembers,
  [GatewayDispatchEvents.GuildMemberUpdate]: GatewayIntentBits.GuildMembers,
  [GatewayDispatchEvents.GuildMemberRemove]: GatewayIntentBits.GuildMembers,
  [GatewayDispatchEvents.GuildBanAdd]: GatewayIntentBits.GuildModeration,
  [GatewayDispatchEvents.GuildBanRemove]: GatewayIntentBits.GuildModeration,
  [GatewayDispatchEvents.MessageCreate]: GatewayIntentBits.GuildMessages,
  [GatewayDispatchEvents.MessageUpdate]: GatewayIntentBits.GuildMessages,
  [GatewayDispatchEvents.MessageDelete]: GatewayIntentBits.GuildMessages,
};

/** Events kept per session for RESUME; older ones force a fresh IDENTIFY (INVALID_SESSION false). */
const REPLAY_BUFFER = 2000;

interface Session {
  id: string;
  intents: number;
  seq: number;
  buffer: GatewayDispatchPayload[];
  connection: Connection | null;
  expiry: NodeJS.Timeout | null;
}

interface Connection {
  socket: WebSocket;
  session: Session | null;
}

export interface GatewayOptions {
  /** How long a disconnected session can still be resumed (Discord: a few minutes). */
  resumeWindowMs?: number;
}

/** Gateway v10 over WebSocket, JSON encoding, no compression (text frames, which discord.js always accepts). */
export class Gateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Map<string, Session>();
  private readonly connections = new Set<Connection>();
  private readonly resumeWindowMs: number;
  /** Count of IDENTIFYs and RESUMEs accepted, for tests of reconnect behaviour. */
  readonly stats = { identifies: 0, resumes: 0, invalidSessions: 0 };

  constructor(
    private readonly context: EmulatorContext,
    private readonly gatewayUrl: () => string,
    options: GatewayOptions = {},
  ) {
    this.resumeWindowMs = options.resumeWindowMs ?? 120_000;
    context.state.setDispatcher((t, d) => this.dispatch(t, d));
  }

  /** Hands `GET /gateway?v=10&encoding=json` upgrades to the WebSocket server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://emulator.local');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, url.searchParams));
  }

  /** Sessions with a live socket (identified or resumed). */
  get connectedSessions(): number {
    return [...this.sessions.values()].filter((session) => session.connection !== null).length;
  }

  dispatch<T extends GatewayDispatchEvents>(t: T, d: DispatchData<T>): void {
    for (const session of this.sessions.values()) this.dispatchTo(session, t, d);
  }

  /** Op 7 RECONNECT to every socket: the client closes and resumes on a new one. */
  requestReconnect(): void {
    for (const connection of this.connections) this.send(connection, { op: GatewayOpcodes.Reconnect, d: undefined, s: null, t: null });
  }

  /** Closes every socket abruptly (no close frame): the client sees 1006 and resumes. */
  dropConnections(): void {
    for (const connection of [...this.connections]) connection.socket.terminate();
  }

  /** Op 9 INVALID_SESSION (not resumable): the client must IDENTIFY again. */
  invalidateSessions(): void {
    for (const connection of this.connections) {
      if (connection.session) this.sessions.delete(connection.session.id);
      connection.session = null;
      this.send(connection, { op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
    }
  }

  close(): void {
    for (const session of this.sessions.values()) if (session.expiry) clearTimeout(session.expiry);
    this.sessions.clear();
    for (const connection of this.connections) connection.socket.terminate();
    this.connections.clear();
    this.wss.close();
  }

  private accept(socket: WebSocket, query: URLSearchParams): void {
    const connection: Connection = { socket, session: null };
    this.connections.add(connection);
    socket.on('message', (data) => this.onMessage(connection, data));
    socket.on('close', (code) => this.onClose(connection, code));
    socket.on('error', () => socket.terminate());
    const version = query.get('v');
    if (version !== null && version !== '10') {
      socket.close(GatewayCloseCodes.InvalidAPIVersion, 'Invalid API version');
      return;
    }
    if ((query.get('encoding') ?? 'json') !== 'json') {
      socket.close(GatewayCloseCodes.DecodeError, 'Only JSON encoding is emulated');
      return;
    }
    this.send(connection, {
      op: GatewayOpcodes.Hello,
      d: { heartbeat_interval: this.context.settings.heartbeatIntervalMs },
      s: null,
      t: null,
    });
  }

  private onMessage(connection: Connection, data: RawData): void {
    let payload: { op?: unknown; d?: unknown };
    try {
      payload = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8')) as {
        op?: unknown;
        d?: unknown;
      };
    } catch {
      connection.socket.close(GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
      return;
    }
    switch (payload.op) {
      case GatewayOpcodes.Heartbeat:
        this.send(connection, { op: GatewayOpcodes.HeartbeatAck, d: undefined, s: null, t: null });
        return;
      case GatewayOpcodes.Identify:
        // Shape checked field by field below; the type names what discord.js sends.
        this.identify(connection, payload.d as GatewayIdentifyData);
        return;
      case GatewayOpcodes.Resume:
        this.resume(connection, payload.d as GatewayResumeData);
        return;
      case GatewayOpcodes.RequestGuildMembers:
        if (!connection.session) return this.notAuthenticated(connection);
        this.sendMemberChunk(connection.session, payload.d as GatewayRequestGuildMembersData);
        return;
      case GatewayOpcodes.PresenceUpdate:
      case GatewayOpcodes.VoiceStateUpdate:
        if (!connection.session) this.notAuthenticated(connection);
        return;
      default:
        connection.socket.close(GatewayCloseCodes.UnknownOpcode, 'Unknown opcode.');
    }
  }

  private notAuthenticated(connection: Connection): void {
    connection.socket.close(GatewayCloseCodes.NotAuthenticated, 'Not authenticated.');
  }

  private tokenMatches(token: unknown): boolean {
    return (
      typeof token === 'string' &&
      token.replace(/^Bot\s+/i, '') === this.context.application.botToken &&
      !this.context.application.botTokenRevoked
    );
  }

  private identify(connection: Connection, data: GatewayIdentifyData | undefined): void {
    if (connection.session) {
      connection.socket.close(GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated.');
      return;
    }
    if (!data || !this.tokenMatches(data.token)) {
      connection.socket.close(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    if (typeof data.intents !== 'number' || (data.intents & ~ALL_INTENTS) !== 0) {
      connection.socket.close(GatewayCloseCodes.InvalidIntents, 'Invalid intent(s).');
      return;
    }
    const [shardId, shardCount] = data.shard ?? [0, 1];
    if (shardId !== 0 || shardCount !== 1) {
      connection.socket.close(GatewayCloseCodes.InvalidShard, 'Invalid shard.');
      return;
    }
    this.stats.identifies++;
    const session: Session = { id: randomBytes(16).toString('hex'), intents: data.intents, seq: 0, buffer: [], connection, expiry: null };
    this.sessions.set(session.id, session);
    connection.session = session;
    const { state, application } = this.context;
    this.dispatchTo(session, GatewayDispatchEvents.Ready, {
      v: 10,
      user: state.botUser,
      guilds: [{ id: state.guild.id, unavailable: true }],
      session_id: session.id,
      resume_gateway_url: this.gatewayUrl(),
      shard: [0, 1],
      application: { id: application.id, flags: APPLICATION_FLAGS, flags_new: String(APPLICATION_FLAGS) },
    });
    this.dispatchTo(
      session,
      GatewayDispatchEvents.GuildCreate,
      toGuildCreate(state, { allMembers: (data.intents & GatewayIntentBits.GuildMembers) !== 0 }),
    );
  }

  private resume(connection: Connection, data: GatewayResumeData | undefined): void {
    if (!data || !this.tokenMatches(data.token)) {
      connection.socket.close(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    const session = this.sessions.get(data.session_id);
    const oldest = session?.buffer[0]?.s ?? (session ? session.seq + 1 : 0);
    if (!session || data.seq + 1 < oldest || data.seq > session.seq) {
      this.stats.invalidSessions++;
      this.send(connection, { op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
      return;
    }
    if (session.expiry) clearTimeout(session.expiry);
    session.expiry = null;
    if (session.connection && session.connection !== connection) {
      session.connection.session = null;
      session.connection.socket.close(GatewayCloseCodes.SessionTimedOut, 'Session resumed elsewhere.');
    }
    session.connection = connection;
    connection.session = session;
    this.stats.resumes++;
    for (const payload of session.buffer) if (payload.s > data.seq) this.send(connection, payload);
    this.dispatchTo(session, GatewayDispatchEvents.Resumed, undefined);
  }

  private sendMemberChunk(session: Session, data: GatewayRequestGuildMembersData): void {
    const { state } = this.context;
    const query = 'query' in data ? (data.query ?? '').toLowerCase() : '';
    const userIds = 'user_ids' in data && data.user_ids ? new Set(Array.isArray(data.user_ids) ? data.user_ids : [data.user_ids]) : null;
    const limit = 'limit' in data && data.limit > 0 ? data.limit : Number.POSITIVE_INFINITY;
    const members = [...state.guild.members.values()]
      .filter((member) =>
        userIds ? userIds.has(member.userId) : state.requireUser(member.userId).username.toLowerCase().startsWith(query),
      )
      .slice(0, limit)
      .map((member) => state.toApiMember(member));
    this.dispatchTo(session, GatewayDispatchEvents.GuildMembersChunk, {
      guild_id: state.guild.id,
      members,
      chunk_index: 0,
      chunk_count: 1,
      ...(userIds ? { not_found: [...userIds].filter((id) => !state.guild.members.has(id)) } : {}),
      ...(data.nonce ? { nonce: data.nonce } : {}),
    });
  }

  /** Discord tells a bot about changes to its own membership (roles) without the GUILD_MEMBERS intent. */
  private isOwnMemberUpdate<T extends GatewayDispatchEvents>(t: T, d: DispatchData<T>): boolean {
    if (t !== GatewayDispatchEvents.GuildMemberUpdate) return false;
    return (d as DispatchData<GatewayDispatchEvents.GuildMemberUpdate>).user.id === this.context.state.botUserId;
  }

  private dispatchTo<T extends GatewayDispatchEvents>(session: Session, t: T, d: DispatchData<T>): void {
    const needed = EVENT_INTENTS[t];
    if (needed !== undefined && (session.intents & needed) === 0 && !this.isOwnMemberUpdate(t, d)) return;
    session.seq++;
    // The union member for T: discord-api-types cannot relate a generic T to its payload, so this names it.
    const payload = {
      op: GatewayOpcodes.Dispatch,
      t,
      s: session.seq,
      d: this.withoutMessageContent(session, t, d),
    } as GatewayDispatchPayload;
    session.buffer.push(payload);
    if (session.buffer.length > REPLAY_BUFFER) session.buffer.shift();
    if (session.connection) this.send(session.connection, payload);
  }

  /** Without the MESSAGE_CONTENT intent, others' messages arrive with empty content, embeds and components, as on Discord. */
  private withoutMessageContent<T extends GatewayDispatchEvents>(session: Session, t: T, d: DispatchData<T>): DispatchData<T> {
    if ((session.intents & GatewayIntentBits.MessageContent) !== 0) return d;
    if (t !== GatewayDispatchEvents.MessageCreate && t !== GatewayDispatchEvents.MessageUpdate) return d;
    const message = d as DispatchData<GatewayDispatchEvents.MessageCreate>;
    const botId = this.context.application.botUserId;
    if (message.author.id === botId || message.mentions.some((user) => user.id === botId)) return d;
    // T is MESSAGE_CREATE or MESSAGE_UPDATE here; TypeScript cannot narrow a generic through the checks above.
    return { ...message, content: '', embeds: [], attachments: [], components: [] } as unknown as DispatchData<T>;
  }

  private send(connection: Connection, payload: GatewayReceivePayload): void {
    if (connection.socket.readyState === WebSocket.OPEN) connection.socket.send(JSON.stringify(payload));
  }

  private onClose(connection: Connection, code: number): void {
    this.connections.delete(connection);
    const session = connection.session;
    if (!session || session.connection !== connection) return;
    session.connection = null;
    // A client closing with 1000/1001 ends its session (Discord invalidates it); anything else may resume.
    if (code === 1000 || code === 1001) {
      this.sessions.delete(session.id);
      return;
    }
    session.expiry = setTimeout(() => this.sessions.delete(session.id), this.resumeWindowMs);
    session.expiry.unref();
  }
}
