-- One round trip per audit row: take the chain lock, read the head and insert the next
-- row in one call. A VOLATILE plpgsql function takes a fresh snapshot for each statement,
-- so the head it reads after the lock includes every row committed before the lock was
-- granted (a single SQL statement could not: its snapshot predates the lock). The row's
-- hash is SHA-256 over the previous hash, a newline and the canonical JSON of its content
-- (hashAuditEntry in src/modules/audit/audit-hash.ts, which verifies the chain;
-- audit-hash.agreement.int.test.ts checks the two agree); the caller sends that JSON
-- split around the value of "at", which only the chain knows (never earlier than the
-- head's, so time stays monotonic along the chain). The lock is the one src/modules/audit has always taken.
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
  head_hash text;
  head_at timestamptz;
  row_at timestamptz;
  prev text;
BEGIN
  PERFORM pg_advisory_xact_lock(72611002);
  SELECT hash, at INTO head_hash, head_at FROM audit_log ORDER BY id DESC LIMIT 1;
  prev := coalesce(head_hash, repeat('0', 64));
  row_at := greatest(p_now, head_at);
  RETURN QUERY
    INSERT INTO audit_log (at, actor_type, actor_id, actor_name, action, target_type, target_id, details, prev_hash, hash)
    VALUES (
      row_at, p_actor_type, p_actor_id, p_actor_name, p_action, p_target_type, p_target_id, p_details, prev,
      encode(sha256(convert_to(
        prev || E'\n' || p_json_before_at || '"' || to_char(row_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"' || p_json_after_at,
        'UTF8')), 'hex')
    )
    RETURNING *;
END;
$$ LANGUAGE plpgsql VOLATILE;
