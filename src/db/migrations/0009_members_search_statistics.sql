-- A finer sample for the planner's guess of how common a searched word is. A search is
-- planned one of two ways: walk the list's index newest first (a common word fills the
-- page at once) or read the trigram index and sort the matches (a rare word). The guess
-- comes from the column's statistics; with the default target (100) the sample is small
-- enough that, after some ANALYZE runs, a rare word ("foxwizard": 0.1% of 1M names) was
-- taken for a common one and walked across the table: 1.5 s instead of 10 ms. With 1000,
-- every ANALYZE run tried planned every measured word right (scripts/bench, P3). ANALYZE
-- then samples up to 300,000 rows of the table.
ALTER TABLE "members" ALTER COLUMN "username" SET STATISTICS 1000;
--> statement-breakpoint
ALTER TABLE "members" ALTER COLUMN "discord_id" SET STATISTICS 1000;
