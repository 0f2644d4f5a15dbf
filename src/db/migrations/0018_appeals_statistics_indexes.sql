CREATE INDEX "appeals_created_at_idx" ON "appeals" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "appeals_decided_at_status_idx" ON "appeals" USING btree ("decided_at","status") WHERE "appeals"."decided_at" is not null;--> statement-breakpoint
-- days and hours stored before appeals were counted are counted again, appeals included (from the rows still kept)
DELETE FROM "statistics_days";--> statement-breakpoint
DELETE FROM "statistics_hours";
