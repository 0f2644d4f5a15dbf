-- Whether the attempt's profile looked like a stock phone at consent (looksStock; the collected values are
-- never stored), so re-scoring can apply the new-server prior to stored attempts. Existing rows stay null
-- (unknown): on a server too small to judge rarity, re-scoring leaves their links as detection made them.
ALTER TABLE "verification_attempts" ADD COLUMN "stock_profile" boolean;