-- When a Discord account was created, read from its id. Discord ids are snowflakes: the top
-- 42 bits (the id divided by 2^22) count milliseconds since Discord's epoch, 2015-01-01T00:00:00Z
-- (1420070400000 ms after 1970): the rule of snowflakeTimestamp in src/shared/discord-snowflake.ts.
-- NULL for an id that is not 1 to 20 digits: such an account has no known age (never young).
-- Attempts keep the result (verification_attempts.account_created_at) so the raid window can
-- count young accounts without reading the members table.
CREATE OR REPLACE FUNCTION discord_account_created_at(p_discord_id text)
RETURNS timestamptz AS $$
  SELECT CASE WHEN p_discord_id ~ '^[0-9]{1,20}$'
    THEN to_timestamp((floor(p_discord_id::numeric / 4194304) + 1420070400000) / 1000.0)
  END
$$ LANGUAGE sql IMMUTABLE;
