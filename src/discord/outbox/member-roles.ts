import type { APIGuildMember } from 'discord-api-types/v10';

/** The role calls of one change: roles to give (Add Guild Member Role), then roles to take (Remove Guild Member Role). */
export interface RoleCalls {
  give: string[];
  take: string[];
}

/**
 * The role calls that make a change: each role in `add`, then each in `remove` that is not
 * also given. With `known` (the member's roles as the bot last saw them) a role already held
 * is not given again and one not held is not taken; without, every call is made (Discord
 * answers 204 either way). Roles others gave are never named: no call can touch them.
 */
export function roleCallsFor(change: { add: readonly string[]; remove: readonly string[] }, known?: readonly string[]): RoleCalls {
  const give = [...new Set(change.add)].filter((id) => !known?.includes(id));
  const take = [...new Set(change.remove)].filter((id) => !change.add.includes(id) && (known === undefined || known.includes(id)));
  return { give, take };
}

/**
 * Add Guild Member answers 201 with the member when it joined, or 204 with no body when the
 * user was already in the guild (and then ignores `roles`); @discordjs/rest returns the empty
 * body as bytes, so only a member object means the join happened.
 */
export function isGuildMember(answer: unknown): answer is APIGuildMember {
  return typeof answer === 'object' && answer !== null && Array.isArray((answer as { roles?: unknown }).roles);
}
