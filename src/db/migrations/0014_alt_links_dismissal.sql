-- Staff can dismiss a detected alt link ("Not the same person") and reopen it: who, when and
-- why are kept on the link. A dismissed link counts nowhere and detection never changes it
-- (recount_alt_counters and save_alt_links, re-applied after migrating, read these columns).
ALTER TABLE "alt_links" ADD COLUMN "dismissed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alt_links" ADD COLUMN "dismissed_by_staff_id" bigint;--> statement-breakpoint
ALTER TABLE "alt_links" ADD COLUMN "dismissed_by_name" text;--> statement-breakpoint
ALTER TABLE "alt_links" ADD COLUMN "dismiss_reason" text;--> statement-breakpoint
ALTER TABLE "alt_links" ADD CONSTRAINT "alt_links_dismissed_by_staff_id_staff_id_fk" FOREIGN KEY ("dismissed_by_staff_id") REFERENCES "public"."staff"("id") ON DELETE set null ON UPDATE no action;