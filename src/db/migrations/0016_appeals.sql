CREATE TABLE "appeals" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "appeals_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"member_id" bigint NOT NULL,
	"message" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"standing" text NOT NULL,
	"decided_by_staff_id" bigint,
	"decided_by_name" text,
	"decision_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	CONSTRAINT "appeals_status_check" CHECK ("appeals"."status" in ('open', 'approved', 'rejected')),
	CONSTRAINT "appeals_standing_check" CHECK ("appeals"."standing" in ('certain_alt', 'limited')),
	CONSTRAINT "appeals_message_length_check" CHECK (char_length("appeals"."message") between 1 and 1000)
);
--> statement-breakpoint
ALTER TABLE "appeals" ADD CONSTRAINT "appeals_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appeals" ADD CONSTRAINT "appeals_decided_by_staff_id_staff_id_fk" FOREIGN KEY ("decided_by_staff_id") REFERENCES "public"."staff"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "appeals_one_open_per_member_key" ON "appeals" USING btree ("member_id") WHERE "appeals"."status" = 'open';--> statement-breakpoint
CREATE INDEX "appeals_open_queue_idx" ON "appeals" USING btree ("created_at","id") WHERE "appeals"."status" = 'open';--> statement-breakpoint
CREATE INDEX "appeals_member_id_idx" ON "appeals" USING btree ("member_id","created_at" DESC NULLS LAST);