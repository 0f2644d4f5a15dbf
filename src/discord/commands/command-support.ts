import type { ChatInputCommandInteraction, User } from 'discord.js';
import type { Clock } from '../../clock';
import type { Database } from '../../db/client';
import { isAppError } from '../../errors';
import { appendAudit, type AuditActor } from '../../modules/audit';
import type { DiscordStaff } from '../../modules/members';
import type { LogEvent, OutboxPort } from '../../modules/outbox';
import { HandlerRefusal } from '../bot/interaction-dispatcher';

/** What the command handlers share: the database, the time, and the queue of Discord actions. */
export interface CommandWriteDeps {
  database: Database;
  clock: Clock;
  outbox: OutboxPort;
  /** runs the queued Discord actions now rather than at the next poll */
  nudgeOutbox?: () => void;
}

export const BOT_TARGET = 'Bots cannot be verified.';
export const UNKNOWN_USER = 'I could not find that user on Discord.';

/** How a member is named in replies: a mention (never pings: replies allow no mentions) and the username. */
export function who(user: Pick<User, 'id' | 'username'>): string {
  return `<@${user.id}> (${user.username})`;
}

export function noRecordText(user: Pick<User, 'id' | 'username'>): string {
  return `No verification record for ${who(user)}.`;
}

/** The staff member running a command, as the members service and the audit log see them. */
export function discordStaffOf(interaction: ChatInputCommandInteraction): DiscordStaff {
  return { kind: 'discord', discordId: interaction.user.id, username: interaction.user.username };
}

export function auditActorOfInteraction(interaction: ChatInputCommandInteraction): AuditActor {
  return { type: 'discord', id: interaction.user.id, name: interaction.user.username };
}

/** The `user` option of a command: a person (bots are refused before anything is read or written). */
export function targetUser(interaction: ChatInputCommandInteraction): User {
  const user = interaction.options.getUser('user');
  if (!user) throw new HandlerRefusal(UNKNOWN_USER);
  if (user.bot) throw new HandlerRefusal(BOT_TARGET);
  return user;
}

/**
 * A service's "no" in Discord's words: 404 → no record, other 4xx → its message about
 * the target member. Anything else is a real failure and goes to the dispatcher as is.
 */
export function refusalFor(error: unknown, target: Pick<User, 'id' | 'username'>, phrasing: Record<string, string> = {}): unknown {
  if (!isAppError(error) || error.status >= 500) return error;
  if (error.status === 404) return new HandlerRefusal(noRecordText(target));
  return new HandlerRefusal(phrasing[error.message] ?? `${error.message}.`);
}

/** Runs a service call and turns its refusals into polite ephemeral answers. */
export async function refuseOnDomainError<T>(
  work: () => Promise<T>,
  target: Pick<User, 'id' | 'username'>,
  phrasing?: Record<string, string>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw refusalFor(error, target, phrasing);
  }
}

/**
 * Records a command that changes nothing (a lookup, a list, a panel post): one audit row
 * and one line for the logs channel, committed together.
 */
export async function recordCommandUse(
  deps: CommandWriteDeps,
  input: {
    actor: AuditActor;
    action: string;
    targetType?: string;
    targetId?: string;
    details?: Record<string, unknown>;
    log: string;
    event?: LogEvent['kind'];
  },
): Promise<void> {
  const now = deps.clock.now();
  await deps.database.db.transaction(async (tx) => {
    await appendAudit(
      tx,
      {
        actor: input.actor,
        action: input.action,
        targetType: input.targetType ?? null,
        targetId: input.targetId ?? null,
        details: input.details,
      },
      now,
    );
    await deps.outbox.enqueue(tx, {
      kind: 'log_message',
      event: input.event ?? 'staff_action',
      discordId: input.targetType === 'member' ? input.targetId : undefined,
      text: input.log,
    });
  });
  deps.nudgeOutbox?.();
}
