-- Where each Discord sign-in's callback ended, by the hash of its OAuth state: the same callback again on
-- another web process lands on the same result (callback-outcomes.repository.ts). Rows live minutes.
CREATE TABLE "sign_in_callbacks" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"callback_hash" text NOT NULL,
	"kind" text NOT NULL,
	"outcome" jsonb,
	"running_until" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sign_in_callbacks_expires_at_idx" ON "sign_in_callbacks" USING btree ("expires_at");