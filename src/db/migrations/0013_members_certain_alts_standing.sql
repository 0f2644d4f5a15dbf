-- A detected alt link counts as certain only while staff have set no manual alt status of
-- their own (a manual 'suspected_alt' downgrades a link): the certain-alts list filter changed,
-- so its partial index is rebuilt with the filter's new predicate.
DROP INDEX "members_certain_alts_idx";--> statement-breakpoint
CREATE INDEX "members_certain_alts_idx" ON "members" USING btree ("verified_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE ("members"."manual_alt_status" = 'certain_alt' or ("members"."is_linked_as_alt" and "members"."manual_alt_status" is null));
