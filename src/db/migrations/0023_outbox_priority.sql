-- Interactive actions (a member waiting in front of a button) are claimed before bulk ones (joins from the
-- website, log lines): priority 0 before 1, then queue order (outbox.repository.ts, claimQuery). Every
-- existing row is bulk.
DROP INDEX "discord_outbox_claim_idx";--> statement-breakpoint
ALTER TABLE "discord_outbox" ADD COLUMN "priority" smallint DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX "discord_outbox_claim_idx" ON "discord_outbox" USING btree ("kind","priority","next_attempt_at","id") WHERE "discord_outbox"."status" in ('pending', 'running');