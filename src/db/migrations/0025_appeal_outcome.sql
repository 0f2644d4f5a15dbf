-- What an approved appeal did (the alt links it dismissed, the manual status it cleared, the roles it
-- changed), kept with the appeal so its history says it (appeals.service.ts, AppealOutcome).
ALTER TABLE "appeals" ADD COLUMN "outcome" jsonb;--> statement-breakpoint
-- A member staff verified by hand counts as having confirmed the rules (markManuallyVerified): those
-- verified by hand before read 'Pending'. Only staff give Discord access without the rules confirmed
-- (the button needs them, and taking verification away clears both).
UPDATE "members" SET "rules_confirmed" = true WHERE "guild_access" = 'verified' AND NOT "rules_confirmed";
