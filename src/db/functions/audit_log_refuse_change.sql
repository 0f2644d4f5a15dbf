-- The audit log is append-only: history cannot be rewritten, only added to. The one change
-- allowed is the sealer's: an unsealed row gets its place in the chain (seal_seq) and its
-- hashes, once, with everything else left as it was.
CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'UPDATE'
    AND OLD.seal_seq IS NULL AND OLD.prev_hash IS NULL AND OLD.hash IS NULL
    AND NEW.seal_seq IS NOT NULL AND NEW.prev_hash IS NOT NULL AND NEW.hash IS NOT NULL
    AND (NEW.id, NEW.at, NEW.actor_type, NEW.actor_id, NEW.actor_name, NEW.action, NEW.target_type, NEW.target_id, NEW.details, NEW.content_hash)
      IS NOT DISTINCT FROM (OLD.id, OLD.at, OLD.actor_type, OLD.actor_id, OLD.actor_name, OLD.action, OLD.target_type, OLD.target_id, OLD.details, OLD.content_hash)
  THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$ LANGUAGE plpgsql;
