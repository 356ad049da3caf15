-- output: superseded_by_set
-- kind: check
-- invariant: counted logs have no superseded_by, superseded logs a superseded_by and a reason
-- grain: one row per log whose set_status, superseded_by and superseded_reason disagree
-- needs: logs
-- holes: counted
--
-- The log set (ingest, internal/logset): a counted log names no superseding log, a superseded one
-- names it and why. {{counted}} is logset.Counted as an SQL literal.
SELECT path, set_status, superseded_by, superseded_reason
FROM logs
WHERE (set_status = {{counted}}) <> (superseded_by IS NULL) OR (superseded_by IS NULL) <> (superseded_reason IS NULL)
