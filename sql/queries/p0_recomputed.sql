-- output: p0_recomputed
-- kind: query
-- grain: one row per log of one eval with P0 rows (Part A and Part C), the rows of p0_check
-- measure: P0 check (pre-registration Part B, "P0 reproduces the eval's own metric"): the headline metric under P0 recomputed per log with the eval's own formula, beside the results the log stores
-- needs: policy_scores, logs, score_values, rates
-- holes: components, averages, scored_when, formula
-- columns: log_id, path, results, value
--
-- Rescore runs it once per eval ($eval), the holes filled from the eval's profile as for
-- headline_cells, and compares value with the metric in results (the log's own results JSON).
-- value is NULL when no sample of the log counts.
WITH comps AS (
  SELECT log_id, policy, sample_id, {{components}}
  FROM policy_scores
  WHERE eval = $eval
),
reduced AS (
  SELECT log_id, policy, sample_id, {{averages}} FROM comps GROUP BY log_id, policy, sample_id
),
scored AS (
  SELECT * FROM reduced WHERE coalesce(({{scored_when}}), false)
),
logs_p0 AS (SELECT DISTINCT log_id FROM reduced WHERE policy = 'P0'),
point AS (SELECT log_id, ({{formula}})::DOUBLE AS value FROM scored WHERE policy = 'P0' GROUP BY ALL)
SELECT l.log_id, lg.path, lg.results::VARCHAR AS results, p.value
FROM logs_p0 l
JOIN logs lg USING (log_id)
LEFT JOIN point p USING (log_id)
ORDER BY lg.path
