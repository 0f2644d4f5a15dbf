ALTER TABLE "verification_attempts" ADD COLUMN "browser_token_hash" text;--> statement-breakpoint
CREATE INDEX "attempts_browser_token_hash_idx" ON "verification_attempts" USING btree ("browser_token_hash","id","member_id","network_hash");--> statement-breakpoint
-- find_alt_candidates gains the browser token hash (src/db/functions/find_alt_candidates.sql re-creates it after the migrations)
DROP FUNCTION IF EXISTS find_alt_candidates(text, text, text, text, text, text, text, bigint, integer, integer);
