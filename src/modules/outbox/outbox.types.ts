/** The roles the product manages, by purpose; the bot resolves them to the guild's role ids. */
export type ManagedRole = 'verified' | 'limited' | 'unverified';

/** A line for the logs channel. */
export interface LogEvent {
  kind: 'verified' | 'limited_access' | 'alt_detected' | 'vpn_blocked' | 'denied' | 'staff_action' | 'outbox_failed' | 'privacy' | 'appeal';
  text: string;
  discordId?: string;
}

/**
 * What a line in the logs channel is about, when staff can act on it from there: the line is
 * posted as an embed with buttons (src/discord/log-cards). `member`: a verification's outcome
 * (Kick, Ban, and Verify unless `verified`); `alt`: an alt found (`discordId` the alt, `mainId`
 * the account it is an alt of; Verify, Kick, Ban, Not the same person); `appeal`: an appeal filed
 * (Approve, Reject). Every card links to the member's dashboard page.
 */
export type LogCard =
  | { for: 'member'; discordId: string; verified?: boolean }
  | { for: 'alt'; discordId: string; mainId: string }
  | { for: 'appeal'; discordId: string; appealId: number };

/** Who waits for an action: a member in front of a button ('interactive'), or nobody in particular ('bulk'). */
export type OutboxPriority = (typeof import('../../db/schema').OUTBOX_PRIORITIES)[number];

/**
 * A Discord side effect that follows a stored decision.
 * - `reason` is the X-Audit-Log-Reason the change carries: written for a moderator reading
 *   Discord's own audit log ("Gatekeeper: verified by staff (alice)"), decided where the action
 *   is queued, which knows why.
 * - `priority` (default 'bulk'): an interactive action is claimed before bulk ones of its kind,
 *   and so is every earlier unfinished action of the same member it waits for
 *   (OutboxPort.enqueue raises them); the order of one member's actions never changes.
 */
export type DiscordAction = DiscordActionBody & { priority?: OutboxPriority };

type DiscordActionBody =
  /** `keepToken`: the token is also the member's Linked Roles grant (stored apart), so it is not revoked after the join */
  | { kind: 'add_guild_member'; discordId: string; roles: ManagedRole[]; accessToken: string; reason: string; keepToken?: boolean }
  | { kind: 'add_role' | 'remove_role'; discordId: string; role: ManagedRole; reason: string }
  /** Gives the roles in `add`, then takes those in `remove`, one role call each: roles others gave are never touched. */
  | { kind: 'update_roles'; discordId: string; add: ManagedRole[]; remove: ManagedRole[]; reason: string }
  | { kind: 'kick' | 'ban'; discordId: string; reason: string }
  /** Lifts a ban (an approved appeal of a member the certain-alt action banned); no ban is fine. */
  | { kind: 'unban'; discordId: string; reason: string }
  /** `alarm`: a certain alt or a raid alarm, whose post pings the server's alarm role when one is set (log-card-message.ts) */
  | { kind: 'log_message'; text: string; event?: LogEvent['kind']; discordId?: string; card?: LogCard; alarm?: true }
  /** Modify Guild Incident Actions: the lockdown's pause of invites and DMs in Discord (null lifts it) */
  | { kind: 'incident_actions'; invitesDisabledUntil: string | null; dmsDisabledUntil: string | null; reason: string }
  /**
   * Update Current User Application Role Connection with the member's own grant: what their record says
   * when it runs. `sealedRefreshToken` (a deletion): their grant, taken from the deleted record, to clear
   * the connection with and revoke.
   */
  | { kind: 'role_connection'; discordId: string; sealedRefreshToken?: string }
  /** Modify Guild's verification level: raised to `raiseTo` during a lockdown; null puts the previous level back after it */
  | { kind: 'verification_level'; raiseTo: number | null; reason: string };

export type OutboxStatus = 'pending' | 'running' | 'done' | 'failed';

export interface OutboxEntry {
  id: number;
  kind: DiscordAction['kind'];
  discordId: string | null;
  payload: Record<string, unknown>;
  hasSecret: boolean;
  status: OutboxStatus;
  priority: OutboxPriority;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** What features call to queue a Discord action inside their own transaction. */
export interface OutboxPort {
  /**
   * Queues the actions in one statement, in the order given. When one is interactive, a statement before
   * it raises the member's earlier unfinished actions (log lines aside) to interactive too, so that what
   * the member's action waits for does not wait behind bulk work.
   */
  enqueue(executor: import('../../db/client').Executor, ...actions: DiscordAction[]): Promise<void>;
  /**
   * The same INSERT, not run: for a caller that runs it inside one of its own statements
   * (e.g. alongside its audit row), to save a round trip. At least one action, none interactive (those
   * go through `enqueue`, which raises what they wait for).
   */
  enqueueQuery(
    executor: import('../../db/client').Executor,
    ...actions: [DiscordAction, ...DiscordAction[]]
  ): import('drizzle-orm').SQLWrapper;
}
