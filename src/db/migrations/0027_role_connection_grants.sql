CREATE TABLE "role_connection_grants" (
	"discord_id" text PRIMARY KEY NOT NULL,
	"sealed_refresh_token" text NOT NULL,
	"sealed_access_token" text NOT NULL,
	"access_expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "role_connection_grants" ADD CONSTRAINT "role_connection_grants_discord_id_members_discord_id_fk" FOREIGN KEY ("discord_id") REFERENCES "public"."members"("discord_id") ON DELETE cascade ON UPDATE no action;