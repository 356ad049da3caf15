-- output: d1a_truncation
-- kind: output
-- grain: one row per eval × reasoning route (default arm)
-- measure: D1(a) truncation share of samples (pre-registration §1 D1(a), §5): truncated_empty replies over all samples of the eval × reasoning route at the eval's own settings; denominator every sample of the cell in the default arm, errors included (design.md ruling)
-- needs: class_rates, study_routes
--
-- The class_rates row for truncated_empty, so D1(a) and the class table can never disagree.
WITH reasoning_routes AS (
  SELECT route, model FROM study_routes WHERE reasoning
),
truncated AS (
  SELECT * FROM class_rates
  WHERE profiled AND arm = 'default' AND class = 'truncated_empty'
)
SELECT
  t.eval, t.route, r.model,
  t.n_samples, t.n_replies,
  t.n_class_replies AS n_truncated_replies,
  t.x_samples AS x_truncated,
  t.rate AS share,
  t.ci_low, t.ci_high, t.level
FROM truncated t
JOIN reasoning_routes r USING (route)
ORDER BY t.eval, t.route
