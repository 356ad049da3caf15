-- output: headline_cells
-- kind: query
-- grain: one row per route × arm × policy of one eval (Part A), the rows of headlines
-- measure: D3 headlines (pre-registration Part B and §6): each policy's headline metric per eval × route × arm, computed with the eval's own formula from the per-sample rows, with its percentile bootstrap interval over samples and the paired interval of its difference from P0
-- needs: policy_scores, log_assignments, score_values, rates
-- given: headline_boot
-- holes: components, averages, scored_when, formula
-- columns: route, arm, policy, n_samples, n_scored, value, ci_low, ci_high, n_needs_judge, delta_p0, delta_low, delta_high
--
-- Rescore runs it once per eval ($eval), the holes filled from the eval's profile (the manifest's
-- SQL): components evaluates each score component on a score row (NULL when the row is unscored
-- or the component NaN), averages takes each component's mean over a sample's epochs (as
-- inspect_ai's default mean reducer does; exact_avg, so the same whatever order the epochs are
-- added in), scored_when says which reduced samples count, and
-- formula is the metric over them. headline_boot holds the cell's resamples (rescore draws them:
-- headline_boot_samples); every policy of a cell uses the same draws, so the interval of a
-- policy's difference from P0 is paired. A resample whose metric is NaN is left out of the
-- intervals (__resample: a name no score component takes). Part C replays are judge tests and are left out.
WITH comps AS (
  SELECT route, arm, policy, sample_id, {{components}}
  FROM policy_scores
  WHERE eval = $eval AND log_id IN (SELECT log_id FROM log_assignments WHERE part = 'A')
),
reduced AS (
  SELECT route, arm, policy, sample_id, {{averages}} FROM comps GROUP BY route, arm, policy, sample_id
),
scored AS (
  SELECT * FROM reduced WHERE coalesce(({{scored_when}}), false)
),
cells AS (SELECT route, arm, policy, count(*) AS n_samples FROM reduced GROUP BY ALL),
point AS (SELECT route, arm, policy, count(*) AS n_scored, ({{formula}})::DOUBLE AS value FROM scored GROUP BY ALL),
needs AS (
  SELECT route, arm, policy, count(DISTINCT sample_id) AS n
  FROM policy_scores
  WHERE eval = $eval AND needs_judge AND log_id IN (SELECT log_id FROM log_assignments WHERE part = 'A')
  GROUP BY ALL
),
resampled AS (
  SELECT scored.*, b.resample AS __resample
  FROM headline_boot b JOIN scored ON scored.route = b.route AND scored.arm = b.arm AND scored.sample_id = b.sample_id
),
bs AS (
  SELECT route, arm, policy, __resample, ({{formula}})::DOUBLE AS value FROM resampled GROUP BY route, arm, policy, __resample
),
ci AS (
  SELECT route, arm, policy, percentile_low(value) AS lo, percentile_high(value) AS hi
  FROM bs WHERE NOT isnan(value) GROUP BY ALL
),
paired AS (
  SELECT b.route, b.arm, b.policy, percentile_low(b.value - b0.value) AS dlo, percentile_high(b.value - b0.value) AS dhi
  FROM bs b JOIN bs b0 ON b0.route = b.route AND b0.arm = b.arm AND b0.__resample = b.__resample AND b0.policy = 'P0'
  WHERE NOT isnan(b.value) AND NOT isnan(b0.value) GROUP BY ALL
),
p0 AS (SELECT route, arm, value AS v0 FROM point WHERE policy = 'P0')
SELECT
  c.route, c.arm, c.policy, c.n_samples, coalesce(p.n_scored, 0) AS n_scored, p.value,
  ci.lo AS ci_low, ci.hi AS ci_high, coalesce(needs.n, 0) AS n_needs_judge,
  p.value - p0.v0 AS delta_p0, paired.dlo AS delta_low, paired.dhi AS delta_high
FROM cells c
LEFT JOIN point p USING (route, arm, policy)
LEFT JOIN ci USING (route, arm, policy)
LEFT JOIN needs USING (route, arm, policy)
LEFT JOIN p0 USING (route, arm)
LEFT JOIN paired USING (route, arm, policy)
ORDER BY c.route, c.arm, c.policy
