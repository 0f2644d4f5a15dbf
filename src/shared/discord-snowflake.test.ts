import { snowflakeDate, snowflakeTimestamp } from './discord-snowflake';

describe('Discord snowflake dates', () => {
  it('reads the creation time from the top 42 bits (the example id of Discord’s documentation)', () => {
    expect(snowflakeDate('175928847299117063').toISOString()).toBe('2016-04-30T11:18:25.796Z');
  });

  it('counts from Discord’s epoch, 2015-01-01', () => {
    expect(snowflakeTimestamp('0')).toBe(Date.UTC(2015, 0, 1));
    expect(snowflakeTimestamp(String(1n << 22n))).toBe(Date.UTC(2015, 0, 1) + 1);
  });
});
