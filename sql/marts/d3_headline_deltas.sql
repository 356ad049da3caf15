-- output: d3_headline_deltas
-- kind: output
-- grain: one row per eval × route × arm
-- measure: D3 impact (pre-registration §1 D3, §5 "Headline under each policy", §6 primary cells): the P3 − P0 change of the eval's headline metric, beside the larger-of floor's two terms in the metric's units: one percentage point (scale / 100) and the P0 headline's interval half-width in the same cell (design.md ruling)
-- needs: headlines, primary_cells
-- optional: study_evals
--
-- is_primary marks the pre-registered primary cells (default arm only); every other row is
-- exploratory. delta_pp and p0_half_width_pp restate both in percentage points. The threshold
-- (manifest d3_min_delta_pp) is applied by decide, not here. kind (refusal = safety eval) is what
-- H3 compares; NULL without study_evals.
WITH per_policy AS (
  SELECT
    eval, route, arm,
    any_value(metric) AS metric,
    any_value(scale) AS scale,
    bool_and(higher_is_better) AS higher_is_better,
    max(value) FILTER (WHERE policy = 'P0') AS p0_value,
    max(value) FILTER (WHERE policy = 'P1') AS p1_value,
    max(value) FILTER (WHERE policy = 'P2') AS p2_value,
    max(value) FILTER (WHERE policy = 'P3') AS p3_value,
    max(half_width) FILTER (WHERE policy = 'P0') AS p0_half_width,
    max(ci_low) FILTER (WHERE policy = 'P0') AS p0_ci_low,
    max(ci_high) FILTER (WHERE policy = 'P0') AS p0_ci_high,
    max(n_samples) FILTER (WHERE policy = 'P0') AS n_samples,
    max(n_scored) FILTER (WHERE policy = 'P0') AS p0_n_scored,
    max(n_scored) FILTER (WHERE policy = 'P3') AS p3_n_scored
  FROM headlines
  GROUP BY eval, route, arm
),
primary_set AS (
  SELECT DISTINCT eval, route FROM primary_cells
),
marked AS (
  SELECT
    p.*,
    p.arm = 'default' AND s.eval IS NOT NULL AS is_primary,
    e.kind
  FROM per_policy p
  LEFT JOIN primary_set s USING (eval, route)
  LEFT JOIN study_evals e USING (eval)
),
deltas AS (
  SELECT *, scale / 100 AS pp_unit, p3_value - p0_value AS delta
  FROM marked
)
SELECT
  eval, route, arm, kind, metric, scale, higher_is_better, is_primary,
  p0_value, p1_value, p2_value, p3_value,
  delta, pp_unit,
  delta / pp_unit AS delta_pp,
  p0_half_width,
  p0_half_width / pp_unit AS p0_half_width_pp,
  p0_ci_low, p0_ci_high,
  n_samples, p0_n_scored, p3_n_scored
FROM deltas
ORDER BY eval, route, arm
