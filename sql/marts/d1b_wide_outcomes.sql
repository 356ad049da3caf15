-- output: d1b_wide_outcomes
-- kind: output
-- grain: one row per eval × route × re-run class × refused, and one pooled row per eval × re-run class × refused (route NULL)
-- measure: D1(b) what truncations become (pre-registration §5): the class of each wide re-run (max_tokens 16,000) of a truncated_empty reply, and whether the eval's own scorer counted it as a refusal
-- needs: reruns, rates
--
-- Only paired re-runs (status paired) of truncated_empty replies. refused is refused, not_refused or
-- unknown (the scorer left the re-run unscored, or the eval has no refusal predicate). Each sample
-- (eval × route × sample id) counts once: its re-runs (one per epoch) share its weight. Pooled rows
-- count a sample of each route as its own unit.
WITH wide AS (
  SELECT
    eval, route, sample_id, rerun_class,
    CASE WHEN rerun_refused THEN 'refused' WHEN NOT rerun_refused THEN 'not_refused' ELSE 'unknown' END AS refused
  FROM reruns
  WHERE arm = 'wide' AND status = 'paired' AND orig_class = 'truncated_empty'
),
weighted AS (
  SELECT *, sample_weight((eval, route, sample_id)) AS sample_weight
  FROM wide
),
outcomes AS (
  SELECT
    eval, route, grouping(route) = 1 AS pooled, rerun_class, refused,
    count(*) AS n_reruns, sample_share(sample_weight, true) AS x_samples
  FROM weighted
  GROUP BY GROUPING SETS ((eval, route, rerun_class, refused), (eval, rerun_class, refused))
),
cells AS (
  SELECT eval, route, grouping(route) = 1 AS pooled, count(DISTINCT (route, sample_id)) AS n_samples
  FROM wide
  GROUP BY GROUPING SETS ((eval, route), (eval))
)
SELECT
  o.eval, o.route, o.pooled, o.rerun_class, o.refused,
  c.n_samples, o.n_reruns, o.x_samples,
  rate(o.x_samples, c.n_samples) AS share
FROM outcomes o
JOIN cells c ON c.eval = o.eval AND c.route IS NOT DISTINCT FROM o.route
ORDER BY o.eval, o.pooled, o.route, o.rerun_class, o.refused
