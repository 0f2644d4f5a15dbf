-- Recomputes members' alts_found (distinct other members linked either way at medium or
-- certain confidence: a 'possible' link, the address alone, stays listed on the member's
-- page but is not counted, so housemates do not make the red alt-count badge) and
-- is_linked_as_alt (alt side of a certain link) from alt_links. A link staff dismissed
-- ("Not the same person", dismissed_at set) counts in neither. The rows
-- are locked in id order first, so the recount (a later statement: a fresh snapshot in
-- READ COMMITTED) includes links other transactions committed meanwhile, and two
-- recounts never deadlock. manual_alt_status is staff's and never touched.
CREATE OR REPLACE FUNCTION recount_alt_counters(p_member_ids bigint[])
RETURNS TABLE(member_id bigint, alts_found integer, is_linked_as_alt boolean) AS $$
#variable_conflict use_column
BEGIN
  PERFORM 1 FROM members m WHERE m.id = ANY(p_member_ids) ORDER BY m.id FOR UPDATE;
  RETURN QUERY
  UPDATE members m SET
    alts_found = (SELECT count(DISTINCT CASE WHEN l.main_member_id = m.id THEN l.alt_member_id ELSE l.main_member_id END)::int
                  FROM alt_links l WHERE (l.main_member_id = m.id OR l.alt_member_id = m.id) AND l.confidence IN ('medium', 'certain') AND l.dismissed_at IS NULL),
    is_linked_as_alt = EXISTS (SELECT 1 FROM alt_links l WHERE l.alt_member_id = m.id AND l.confidence = 'certain' AND l.dismissed_at IS NULL)
  WHERE m.id = ANY(p_member_ids)
  RETURNING m.id, m.alts_found, m.is_linked_as_alt;
END;
$$ LANGUAGE plpgsql VOLATILE;
