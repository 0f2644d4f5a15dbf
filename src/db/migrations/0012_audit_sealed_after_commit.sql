-- Audit rows are appended unsealed (no chain hash, no lock) and chained after they commit by
-- the sealer (src/modules/audit/audit-sealer.ts), which gives each a seal_seq: the chain is
-- walked in seal_seq order. Rows written before this migration were chained in id order
-- under a lock, so their seal_seq is their rank by id and their hashes stay valid.
CREATE TABLE "audit_chain_checkpoint" (
	"one" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"seal_seq" bigint NOT NULL,
	"row_id" bigint NOT NULL,
	"hash" text NOT NULL,
	"broken_at" bigint,
	"verified_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_log" ALTER COLUMN "prev_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ALTER COLUMN "hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "content_hash" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "seal_seq" bigint;--> statement-breakpoint
ALTER TABLE "audit_log" DISABLE TRIGGER audit_log_no_update;--> statement-breakpoint
UPDATE "audit_log" a SET "seal_seq" = ranked.n FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "audit_log") ranked WHERE a.id = ranked.id;--> statement-breakpoint
ALTER TABLE "audit_log" ENABLE TRIGGER audit_log_no_update;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_seal_seq_idx" ON "audit_log" USING btree ("seal_seq");--> statement-breakpoint
CREATE INDEX "audit_log_unsealed_idx" ON "audit_log" USING btree ("id") WHERE seal_seq is null;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_sealed_whole" CHECK ((seal_seq is null) = (hash is null) and (hash is null) = (prev_hash is null));
