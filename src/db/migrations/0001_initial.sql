CREATE TABLE "admin_notes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "admin_notes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"member_id" bigint NOT NULL,
	"note" text NOT NULL,
	"author_staff_id" bigint,
	"author_name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alt_links" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alt_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"main_member_id" bigint NOT NULL,
	"alt_member_id" bigint NOT NULL,
	"confidence" text NOT NULL,
	"detection_method" text NOT NULL,
	"evidence" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alt_links_not_self" CHECK ("alt_links"."main_member_id" <> "alt_links"."alt_member_id"),
	CONSTRAINT "alt_links_confidence_check" CHECK ("alt_links"."confidence" in ('certain', 'medium', 'possible'))
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"actor_name" text,
	"action" text NOT NULL,
	"target_type" text,
	"target_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "discord_outbox" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "discord_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"discord_id" text,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"sealed_secret" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 12 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"dedupe_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "discord_outbox_status_check" CHECK ("discord_outbox"."status" in ('pending', 'running', 'done', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "login_throttle" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"window_started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"blocked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "members" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "members_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"discord_id" text NOT NULL,
	"username" text NOT NULL,
	"avatar_url" text,
	"status" text DEFAULT 'verified' NOT NULL,
	"source" text DEFAULT 'web' NOT NULL,
	"rules_confirmed" boolean DEFAULT false NOT NULL,
	"rules_confirmed_at" timestamp with time zone,
	"manual_alt_status" text,
	"is_linked_as_alt" boolean DEFAULT false NOT NULL,
	"alts_found" integer DEFAULT 0 NOT NULL,
	"used_vpn" boolean DEFAULT false NOT NULL,
	"vpn_attempts" integer DEFAULT 0 NOT NULL,
	"vpn_provider" text,
	"verification_count" integer DEFAULT 0 NOT NULL,
	"fingerprint_hash" text,
	"network_hash" text,
	"guild_access" text DEFAULT 'pending' NOT NULL,
	"verified_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "members_status_check" CHECK ("members"."status" in ('verified', 'limited_access')),
	CONSTRAINT "members_manual_alt_status_check" CHECK ("members"."manual_alt_status" is null or "members"."manual_alt_status" in ('suspected_alt', 'certain_alt')),
	CONSTRAINT "members_guild_access_check" CHECK ("members"."guild_access" in ('pending', 'verified', 'limited', 'denied')),
	CONSTRAINT "members_counters_check" CHECK ("members"."alts_found" >= 0 and "members"."vpn_attempts" >= 0 and "members"."verification_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "one_time_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shared_networks" (
	"network_hash" text PRIMARY KEY NOT NULL,
	"label" text,
	"marked_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "staff" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "staff_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"is_super_admin" boolean DEFAULT false NOT NULL,
	"is_owner" boolean DEFAULT false NOT NULL,
	"discord_id" text,
	"session_epoch" integer DEFAULT 0 NOT NULL,
	"failed_login_count" integer DEFAULT 0 NOT NULL,
	"last_failed_login_at" timestamp with time zone,
	"last_login_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "verification_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"member_id" bigint NOT NULL,
	"ip_hash" text,
	"network_hash" text,
	"fingerprint_hash" text,
	"canvas_hash" text,
	"webgl_hash" text,
	"audio_hash" text,
	"fonts_hash" text,
	"screen_hash" text,
	"timezone_hash" text,
	"language_hash" text,
	"platform_hash" text,
	"hardware_hash" text,
	"vpn_verdict" text DEFAULT 'clean' NOT NULL,
	"vpn_provider" text,
	"vpn_source" text,
	"timezone_mismatch" boolean DEFAULT false NOT NULL,
	"vpn_check_failed" boolean DEFAULT false NOT NULL,
	"outcome" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attempts_outcome_check" CHECK ("verification_attempts"."outcome" in ('verified', 'limited_access', 'denied')),
	CONSTRAINT "attempts_vpn_verdict_check" CHECK ("verification_attempts"."vpn_verdict" in ('clean', 'vpn', 'proxy', 'tor', 'datacenter', 'unknown'))
);
--> statement-breakpoint
CREATE TABLE "vpn_cache" (
	"ip_hash" text PRIMARY KEY NOT NULL,
	"verdict" text NOT NULL,
	"provider" text,
	"country_code" text,
	"source" text NOT NULL,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "admin_notes" ADD CONSTRAINT "admin_notes_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "admin_notes" ADD CONSTRAINT "admin_notes_author_staff_id_staff_id_fk" FOREIGN KEY ("author_staff_id") REFERENCES "public"."staff"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alt_links" ADD CONSTRAINT "alt_links_main_member_id_members_id_fk" FOREIGN KEY ("main_member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alt_links" ADD CONSTRAINT "alt_links_alt_member_id_members_id_fk" FOREIGN KEY ("alt_member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_attempts" ADD CONSTRAINT "verification_attempts_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_notes_member_id_idx" ON "admin_notes" USING btree ("member_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "alt_links_pair_key" ON "alt_links" USING btree ("main_member_id","alt_member_id");--> statement-breakpoint
CREATE INDEX "alt_links_alt_member_id_idx" ON "alt_links" USING btree ("alt_member_id");--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_log_action_idx" ON "audit_log" USING btree ("action");--> statement-breakpoint
CREATE INDEX "audit_log_actor_idx" ON "audit_log" USING btree ("actor_id");--> statement-breakpoint
CREATE INDEX "audit_log_target_idx" ON "audit_log" USING btree ("target_id");--> statement-breakpoint
CREATE INDEX "discord_outbox_due_idx" ON "discord_outbox" USING btree ("next_attempt_at") WHERE "discord_outbox"."status" in ('pending', 'running');--> statement-breakpoint
CREATE INDEX "discord_outbox_status_idx" ON "discord_outbox" USING btree ("status","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "discord_outbox_discord_id_idx" ON "discord_outbox" USING btree ("discord_id");--> statement-breakpoint
CREATE UNIQUE INDEX "discord_outbox_dedupe_key" ON "discord_outbox" USING btree ("dedupe_key") WHERE "discord_outbox"."status" in ('pending', 'running');--> statement-breakpoint
CREATE UNIQUE INDEX "members_discord_id_key" ON "members" USING btree ("discord_id");--> statement-breakpoint
CREATE INDEX "members_username_trgm_idx" ON "members" USING gin ("username" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "members_discord_id_trgm_idx" ON "members" USING gin ("discord_id" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "members_verified_at_id_idx" ON "members" USING btree ("verified_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "members_last_seen_at_idx" ON "members" USING btree ("last_seen_at");--> statement-breakpoint
CREATE INDEX "members_network_hash_idx" ON "members" USING btree ("network_hash");--> statement-breakpoint
CREATE INDEX "one_time_tokens_expires_at_idx" ON "one_time_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "staff_username_lower_key" ON "staff" USING btree (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX "staff_single_owner_key" ON "staff" USING btree ("is_owner") WHERE "staff"."is_owner";--> statement-breakpoint
CREATE INDEX "attempts_member_id_idx" ON "verification_attempts" USING btree ("member_id");--> statement-breakpoint
CREATE INDEX "attempts_ip_hash_idx" ON "verification_attempts" USING btree ("ip_hash");--> statement-breakpoint
CREATE INDEX "attempts_network_hash_idx" ON "verification_attempts" USING btree ("network_hash");--> statement-breakpoint
CREATE INDEX "attempts_fingerprint_hash_idx" ON "verification_attempts" USING btree ("fingerprint_hash");--> statement-breakpoint
CREATE INDEX "attempts_canvas_hash_idx" ON "verification_attempts" USING btree ("canvas_hash");--> statement-breakpoint
CREATE INDEX "attempts_webgl_hash_idx" ON "verification_attempts" USING btree ("webgl_hash");--> statement-breakpoint
CREATE INDEX "attempts_audio_hash_idx" ON "verification_attempts" USING btree ("audio_hash");--> statement-breakpoint
CREATE INDEX "attempts_fonts_hash_idx" ON "verification_attempts" USING btree ("fonts_hash");--> statement-breakpoint
CREATE INDEX "attempts_created_at_idx" ON "verification_attempts" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "vpn_cache_expires_at_idx" ON "vpn_cache" USING btree ("expires_at");