-- The claim reads each kind's unfinished actions in queue order through one index (outbox.repository.ts,
-- claimQuery); the index on next_attempt_at alone is no longer read.
DROP INDEX "discord_outbox_due_idx";--> statement-breakpoint
CREATE INDEX "discord_outbox_claim_idx" ON "discord_outbox" USING btree ("kind","next_attempt_at","id") WHERE "discord_outbox"."status" in ('pending', 'running');