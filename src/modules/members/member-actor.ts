import type { AuditActor } from '../audit';
import { staffActor } from '../staff';

/** A dashboard staff account acting (audit actor and note author). */
export interface ActingStaff {
  id: number;
  username: string;
}

/** A staff member acting from Discord through a slash command. */
export interface DiscordStaff {
  /** the discriminant: a dashboard account may carry a linked discordId too */
  kind: 'discord';
  discordId: string;
  username: string;
}

/** Who changes a member record: someone on the dashboard or in Discord. */
export type MemberActor = ActingStaff | DiscordStaff;

function isDiscordStaff(actor: MemberActor): actor is DiscordStaff {
  return 'kind' in actor && actor.kind === 'discord';
}

/** How the actor appears in the audit log ('discord' actors carry their Discord user id). */
export function auditActorOf(actor: MemberActor): AuditActor {
  return isDiscordStaff(actor) ? { type: 'discord', id: actor.discordId, name: actor.username } : staffActor(actor);
}

/** How the actor is named to people: in the logs channel, as a note's author, as who marked a network. */
export function actorLabel(actor: MemberActor): string {
  return isDiscordStaff(actor) ? `${actor.username} (Discord)` : actor.username;
}

/** A note's author: the staff account when there is one (a Discord actor has none). */
export function noteAuthorOf(actor: MemberActor): { authorStaffId: number | null; authorName: string } {
  return isDiscordStaff(actor)
    ? { authorStaffId: null, authorName: actorLabel(actor) }
    : { authorStaffId: actor.id, authorName: actor.username };
}
