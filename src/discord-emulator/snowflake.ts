/** Discord's epoch, 2015-01-01T00:00:00.000Z: a snowflake's top 42 bits count milliseconds since it. */
const DISCORD_EPOCH = 1_420_070_400_000n;

let increment = 0n;

/**
 * A snowflake for a moment in time, laid out like Discord's (timestamp << 22 | worker << 17 | process << 12 | increment),
 * so `SnowflakeUtil.timestampFrom(id)` gives realistic creation dates and @discordjs/rest's route hashing (17–19 digits) works.
 */
export function generateSnowflake(at: Date | number = Date.now()): string {
  const ms = BigInt(typeof at === 'number' ? at : at.getTime());
  increment = (increment + 1n) & 0xfffn;
  return (((ms - DISCORD_EPOCH) << 22n) | (1n << 17n) | (1n << 12n) | increment).toString();
}
