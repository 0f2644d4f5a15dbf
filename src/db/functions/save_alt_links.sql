-- Alt detection's writes in one round trip (a verification's cost is its round trips).
--
-- Stores one detection's links for member p_member_id, in the order given (the caller
-- sorts them, so concurrent detections lock in the same order). Each link follows the link
-- upgrade policy, linkChangeFor in src/modules/alts/alt-link-policy.ts: a new pair is
-- inserted ('created'); an existing link (either direction, which it keeps) staff dismissed
-- ("Not the same person") is left exactly as it is ('dismissed'): the pair is never linked
-- again by detection; otherwise it is kept as it
-- is when staff made it ('manual') or the new confidence ranks lower, strengthened when it
-- ranks higher, its evidence refreshed when equal. The ranks come from the caller
-- (confidenceRank): p_ranks = {"certain": 3, …}. A pair another transaction inserts first
-- is treated as existing. Then the members whose link changed are recounted.
-- Returns {"links": [{…link, "change"}], "counters": {id: …} | null}.
CREATE OR REPLACE FUNCTION save_alt_links(p_member_id bigint, p_links jsonb, p_ranks jsonb, p_now timestamptz)
RETURNS jsonb AS $$
#variable_conflict use_column
DECLARE
  l record;
  existing alt_links;
  saved alt_links;
  change text;
  touched bigint[] := ARRAY[p_member_id];
  links jsonb := '[]'::jsonb;
  counters jsonb := NULL;
BEGIN
  FOR l IN SELECT * FROM jsonb_to_recordset(p_links) AS x(main_member_id bigint, alt_member_id bigint, confidence text, detection_method text, evidence jsonb) LOOP
    IF l.main_member_id = l.alt_member_id THEN
      RAISE EXCEPTION 'an account cannot be its own alt';
    END IF;
    change := NULL;
    SELECT * INTO existing FROM alt_links a
      WHERE (a.main_member_id = l.main_member_id AND a.alt_member_id = l.alt_member_id) OR (a.main_member_id = l.alt_member_id AND a.alt_member_id = l.main_member_id)
      ORDER BY a.id LIMIT 1 FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO alt_links AS a (main_member_id, alt_member_id, confidence, detection_method, evidence, created_at, updated_at)
        VALUES (l.main_member_id, l.alt_member_id, l.confidence, l.detection_method, l.evidence, p_now, p_now)
        ON CONFLICT (main_member_id, alt_member_id) DO NOTHING
        RETURNING * INTO saved;
      IF FOUND THEN
        change := 'created';
      ELSE
        SELECT * INTO existing FROM alt_links a
          WHERE (a.main_member_id = l.main_member_id AND a.alt_member_id = l.alt_member_id) OR (a.main_member_id = l.alt_member_id AND a.alt_member_id = l.main_member_id)
          ORDER BY a.id LIMIT 1 FOR UPDATE;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'alt link vanished while being saved';
        END IF;
      END IF;
    END IF;
    IF change IS NULL AND existing.dismissed_at IS NOT NULL THEN
      change := 'dismissed';
      saved := existing;
    END IF;
    IF change IS NULL THEN
      IF existing.detection_method = 'manual' OR (p_ranks ->> l.confidence)::int < (p_ranks ->> existing.confidence)::int THEN
        change := 'kept';
        saved := existing;
      ELSE
        change := CASE WHEN (p_ranks ->> l.confidence)::int > (p_ranks ->> existing.confidence)::int THEN 'strengthened' ELSE 'refreshed' END;
        UPDATE alt_links a SET confidence = l.confidence, detection_method = l.detection_method, evidence = l.evidence, updated_at = p_now
          WHERE a.id = existing.id
          RETURNING * INTO saved;
      END IF;
    END IF;
    IF change NOT IN ('kept', 'dismissed') THEN
      touched := touched || CASE WHEN l.main_member_id = p_member_id THEN l.alt_member_id ELSE l.main_member_id END;
    END IF;
    links := links || jsonb_build_array(jsonb_build_object(
      'id', saved.id, 'mainMemberId', saved.main_member_id, 'altMemberId', saved.alt_member_id,
      'confidence', saved.confidence, 'detectionMethod', saved.detection_method, 'evidence', saved.evidence,
      'createdMs', (extract(epoch FROM saved.created_at) * 1000)::float8, 'updatedMs', (extract(epoch FROM saved.updated_at) * 1000)::float8,
      'change', change));
  END LOOP;
  IF cardinality(touched) > 1 THEN
    SELECT jsonb_object_agg(r.member_id::text, jsonb_build_object('altsFound', r.alts_found, 'isLinkedAsAlt', r.is_linked_as_alt))
      INTO counters FROM recount_alt_counters(touched) r;
  END IF;
  RETURN jsonb_build_object('links', links, 'counters', counters);
END;
$$ LANGUAGE plpgsql VOLATILE;
