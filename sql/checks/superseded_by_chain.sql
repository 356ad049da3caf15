-- output: superseded_by_chain
-- kind: check
-- invariant: every superseded_by leads to a counted log of the dataset
-- grain: one row per superseded log whose chain of superseded_by ends at no counted log
-- needs: logs
-- holes: counted
--
-- superseded_by may name a log that is superseded in turn (a shard's older attempt names the
-- shard's current one, which its merged log supersedes), but the chain ends at a counted log of
-- the dataset; 64 links at most. {{counted}} is logset.Counted as an SQL literal.
WITH RECURSIVE chain(start, cur, depth) AS (
  SELECT log_id, superseded_by, 1 FROM logs WHERE superseded_by IS NOT NULL
  UNION ALL
  SELECT c.start, l.superseded_by, c.depth + 1 FROM chain c JOIN logs l ON l.log_id = c.cur
  WHERE l.superseded_by IS NOT NULL AND c.depth < 64
)
SELECT l.path, l.superseded_by
FROM logs l
WHERE l.superseded_by IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM chain c JOIN logs t ON t.log_id = c.cur WHERE c.start = l.log_id AND t.set_status = {{counted}}
)
