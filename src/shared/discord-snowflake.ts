/**
 * Discord ids are snowflakes: the top 42 bits count milliseconds since Discord's epoch
 * (2015-01-01T00:00:00.000Z), so an id says when its account was created.
 * Pure TypeScript: no DOM, no Node APIs, no imports.
 */

export const DISCORD_EPOCH_MS = 1_420_070_400_000n;

/** Milliseconds since 1970 at which the snowflake was made. */
export function snowflakeTimestamp(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH_MS);
}

/** When the account (or message, channel…) with this id was created. */
export function snowflakeDate(id: string): Date {
  return new Date(snowflakeTimestamp(id));
}

/** When the account with this id was created (epoch ms), or null when the id is no snowflake. */
export function accountCreatedMs(id: string): number | null {
  return /^\d{1,20}$/.test(id) ? snowflakeTimestamp(id) : null;
}
