DROP INDEX "attempts_network_hash_idx";--> statement-breakpoint
CREATE INDEX "attempts_network_hash_idx" ON "verification_attempts" USING btree ("network_hash","id","member_id","canvas_hash","webgl_hash","audio_hash","fonts_hash");
