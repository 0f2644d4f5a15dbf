-- The member search's trigram indexes keep a short pending list. A GIN index with fastupdate (the
-- default) puts each new row's trigrams on a pending list instead of into the index, and every search
-- reads that whole list until it is merged: by VACUUM (on PGlite only the hourly retention job; there is
-- no autovacuum) or by the insert that finds it over gin_pending_list_limit (4 MB by default, some
-- thousands of members). So after a raid each staff search scanned every member that joined since the
-- last VACUUM: measured on PGlite with 8,000 members added to 50,000, a search for a rare word took
-- 7.9 ms instead of 1.0. At 64 kB (the least PostgreSQL accepts) the insert that overflows the list
-- merges it, a few hundred rows at a time: inserts cost what they did (0.42 against 0.40 ms mean),
-- and a search never reads more than 64 kB of list. Turning fastupdate off did as well for searches
-- but made every insert 2.5 times dearer.
ALTER INDEX "members_username_trgm_idx" SET (gin_pending_list_limit = 64);
--> statement-breakpoint
ALTER INDEX "members_discord_id_trgm_idx" SET (gin_pending_list_limit = 64);
