DROP INDEX "attempts_ip_hash_idx";--> statement-breakpoint
DROP INDEX "attempts_network_hash_idx";--> statement-breakpoint
DROP INDEX "attempts_fingerprint_hash_idx";--> statement-breakpoint
DROP INDEX "attempts_canvas_hash_idx";--> statement-breakpoint
DROP INDEX "attempts_webgl_hash_idx";--> statement-breakpoint
DROP INDEX "attempts_audio_hash_idx";--> statement-breakpoint
DROP INDEX "attempts_fonts_hash_idx";--> statement-breakpoint
CREATE INDEX "attempts_ip_hash_idx" ON "verification_attempts" USING btree ("ip_hash","id","member_id");--> statement-breakpoint
CREATE INDEX "attempts_network_hash_idx" ON "verification_attempts" USING btree ("network_hash","id","member_id");--> statement-breakpoint
CREATE INDEX "attempts_fingerprint_hash_idx" ON "verification_attempts" USING btree ("fingerprint_hash","id","member_id");--> statement-breakpoint
CREATE INDEX "attempts_canvas_hash_idx" ON "verification_attempts" USING btree ("canvas_hash","id","member_id");--> statement-breakpoint
CREATE INDEX "attempts_webgl_hash_idx" ON "verification_attempts" USING btree ("webgl_hash","id","member_id");--> statement-breakpoint
CREATE INDEX "attempts_audio_hash_idx" ON "verification_attempts" USING btree ("audio_hash","id","member_id");--> statement-breakpoint
CREATE INDEX "attempts_fonts_hash_idx" ON "verification_attempts" USING btree ("fonts_hash","id","member_id");