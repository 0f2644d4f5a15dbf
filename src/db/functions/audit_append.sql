-- One round trip per audit row, and no lock: the row is inserted unsealed (prev_hash, hash
-- and seal_seq null) and the sealer (src/modules/audit/audit-sealer.ts) chains it once its
-- transaction has committed, so audited transactions never wait for each other here.
-- content_hash is SHA-256 over the canonical JSON of the row's content (hashAuditContent in
-- src/modules/audit/audit-hash.ts; audit-hash.agreement.int.test.ts checks the two agree):
-- the sealer and every verification compare it with the row as stored, so a row edited
-- before it was sealed is still caught. The caller sends that JSON split around the value
-- of "at", which is decided here: never earlier than the newest committed row's, so a
-- writer whose clock is behind does not send time backwards (rows committing at the same
-- moment may still be sealed a few milliseconds out of time order).
CREATE OR REPLACE FUNCTION audit_append(
  p_now timestamptz,
  p_actor_type text,
  p_actor_id text,
  p_actor_name text,
  p_action text,
  p_target_type text,
  p_target_id text,
  p_details jsonb,
  p_json_before_at text,
  p_json_after_at text
) RETURNS SETOF audit_log AS $$
DECLARE
  row_at timestamptz;
BEGIN
  row_at := greatest(p_now, (SELECT max(at) FROM audit_log));
  RETURN QUERY
    INSERT INTO audit_log (at, actor_type, actor_id, actor_name, action, target_type, target_id, details, content_hash)
    VALUES (
      row_at, p_actor_type, p_actor_id, p_actor_name, p_action, p_target_type, p_target_id, p_details,
      encode(sha256(convert_to(
        p_json_before_at || '"' || to_char(row_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"' || p_json_after_at,
        'UTF8')), 'hex')
    )
    RETURNING *;
END;
$$ LANGUAGE plpgsql VOLATILE;
