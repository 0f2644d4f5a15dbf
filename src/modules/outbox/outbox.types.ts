/** The roles the product manages, by purpose; the bot resolves them to the guild's role ids. */
export type ManagedRole = 'verified' | 'limited' | 'unverified';

/** A line for the logs channel. */
export interface LogEvent {
  kind:
    | 'verified'
    | 'limited_access'
    | 'alt_detected'
    | 'vpn_blocked'
    | 'denied'
    | 'staff_action'
    | 'outbox_failed'
    | 'privacy'
    | 'appeal';
  text: string;
  discordId?: string;
}

/**
 * A Discord side effect that follows a stored decision. `reason` is the X-Audit-Log-Reason
 * the change carries: written for a moderator reading Discord's own audit log ("Gatekeeper:
 * verified by staff (alice)"), decided where the action is queued, which knows why.
 */
export type DiscordAction =
  | { kind: 'add_guild_member'; discordId: string; roles: ManagedRole[]; accessToken: string; reason: string }
  | { kind: 'add_role' | 'remove_role'; discordId: string; role: ManagedRole; reason: string }
  /** Gives the roles in `add`, then takes those in `remove`, one role call each: roles others gave are never touched. */
  | { kind: 'update_roles'; discordId: string; add: ManagedRole[]; remove: ManagedRole[]; reason: string }
  | { kind: 'kick' | 'ban'; discordId: string; reason: string }
  /** Lifts a ban (an approved appeal of a member the certain-alt action banned); no ban is fine. */
  | { kind: 'unban'; discordId: string; reason: string }
  | { kind: 'log_message'; text: string; event?: LogEvent['kind']; discordId?: string };

export type OutboxStatus = 'pending' | 'running' | 'done' | 'failed';

export interface OutboxEntry {
  id: number;
  kind: DiscordAction['kind'];
  discordId: string | null;
  payload: Record<string, unknown>;
  hasSecret: boolean;
  status: OutboxStatus;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** What features call to queue a Discord action inside their own transaction. */
export interface OutboxPort {
  /** queues the actions in one statement, in the order given */
  enqueue(executor: import('../../db/client').Executor, ...actions: DiscordAction[]): Promise<void>;
  /**
   * The same INSERT, not run: for a caller that runs it inside one of its own statements
   * (e.g. alongside its audit row), to save a round trip. At least one action.
   */
  enqueueQuery(executor: import('../../db/client').Executor, ...actions: [DiscordAction, ...DiscordAction[]]): import('drizzle-orm').SQLWrapper;
}
