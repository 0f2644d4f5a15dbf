-- Owner tools: the admission gate on members (account age, lockdown: Limited Access or held
-- for review, with the reason), the raid alarms table, and the indexes the statistics page
-- reads per-day counts through (index-only range scans over the period).
CREATE TABLE "raid_alarms" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "raid_alarms_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"raised_at" timestamp with time zone NOT NULL,
	"window_minutes" integer NOT NULL,
	"verifications" integer NOT NULL,
	"baseline_x100" integer NOT NULL,
	"young_percent" integer NOT NULL,
	"shared_percent" integer NOT NULL,
	"reasons" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"lockdown_started" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "gate_action" text;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "gate_reason" text;--> statement-breakpoint
CREATE INDEX "raid_alarms_raised_at_idx" ON "raid_alarms" USING btree ("raised_at");--> statement-breakpoint
CREATE INDEX "alt_links_created_at_confidence_idx" ON "alt_links" USING btree ("created_at","confidence");--> statement-breakpoint
CREATE INDEX "members_held_idx" ON "members" USING btree ("id") WHERE "members"."gate_action" = 'review';--> statement-breakpoint
CREATE INDEX "attempts_created_at_outcome_idx" ON "verification_attempts" USING btree ("created_at","outcome","vpn_verdict","vpn_provider");--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_gate_action_check" CHECK ("members"."gate_action" is null or "members"."gate_action" in ('limited', 'review'));
