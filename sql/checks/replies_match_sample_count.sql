-- output: replies_match_sample_count
-- kind: check
-- invariant: every log's replies equal its sample_count
-- grain: one row per log whose replies differ from its sample_count
-- needs: logs, replies
SELECT l.path, l.sample_count, count(r.log_id)
FROM logs l LEFT JOIN replies r USING (log_id)
GROUP BY ALL HAVING count(r.log_id) <> l.sample_count
