import type { APIRole } from 'discord-api-types/v10';

/** One server in the tests of the bot's permission checks: its id (also its @everyone role's), the bot's and the owner's. */
export const GUILD = '100000000000000000';
export const BOT = '200000000000000000';
export const OWNER = '300000000000000000';

/** A role as Discord lists it (GET /guilds/{id}/roles), with the fields the checks read and the rest at Discord's defaults. */
export const role = (id: string, name: string, position: number, permissions = 0n, managed = false): APIRole =>
  ({
    id,
    name,
    position,
    permissions: String(permissions),
    managed,
    color: 0,
    hoist: false,
    mentionable: false,
    flags: 0,
  }) as unknown as APIRole;
