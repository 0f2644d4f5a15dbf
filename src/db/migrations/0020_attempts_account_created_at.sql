ALTER TABLE "verification_attempts" ADD COLUMN "account_created_at" timestamp with time zone;--> statement-breakpoint
-- The attempts stored before: their account's creation from the member's id. The rule is
-- discord_account_created_at's (src/db/functions), written out here because the function
-- files are applied after the migrations.
UPDATE "verification_attempts" AS a SET "account_created_at" = to_timestamp((floor(m.discord_id::numeric / 4194304) + 1420070400000) / 1000.0)
  FROM "members" AS m WHERE m.id = a.member_id AND m.discord_id ~ '^[0-9]{1,20}$';
