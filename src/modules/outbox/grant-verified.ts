import type { DiscordAction, ManagedRole } from './outbox.types';

/** What giving a member Verified changes in Discord: Verified given, Unverified and Limited Access taken. */
export const VERIFIED_ROLE_CHANGE: { readonly add: readonly ManagedRole[]; readonly remove: readonly ManagedRole[] } = {
  add: ['verified'],
  remove: ['unverified', 'limited'],
};

/** The outbox action that gives a member Verified (the button, staff, an approved appeal, a lockdown's release). */
export function grantVerified(discordId: string, reason: string): Extract<DiscordAction, { kind: 'update_roles' }> {
  return { kind: 'update_roles', discordId, add: [...VERIFIED_ROLE_CHANGE.add], remove: [...VERIFIED_ROLE_CHANGE.remove], reason };
}
