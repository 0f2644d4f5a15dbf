import type { APIGuildMember } from 'discord-api-types/v10';

/**
 * The role list for one Modify Guild Member call: the member's roles now, minus the roles
 * taken away, plus the roles given. Roles someone else gave (another bot, staff by hand)
 * stay; the guild's @everyone role is never listed.
 */
export function nextMemberRoles(current: readonly string[], change: { add: readonly string[]; remove: readonly string[] }): string[] {
  const removed = new Set(change.remove);
  const next = current.filter((id) => !removed.has(id));
  for (const id of change.add) if (!next.includes(id)) next.push(id);
  return next;
}

/** Whether two role lists hold the same roles (order aside): then there is nothing to send. */
export function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((id) => set.has(id));
}

/**
 * Add Guild Member answers 201 with the member when it joined, or 204 with no body when the
 * user was already in the guild (and then ignores `roles`); @discordjs/rest returns the empty
 * body as bytes, so only a member object means the join happened.
 */
export function isGuildMember(answer: unknown): answer is APIGuildMember {
  return typeof answer === 'object' && answer !== null && Array.isArray((answer as { roles?: unknown }).roles);
}
