-- drizzle-kit never writes CREATE EXTENSION: trigram search on usernames needs it first.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
