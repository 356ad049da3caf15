-- output: d1b_non_refusal
-- kind: output
-- grain: one row per refusal eval × route, and one pooled row per refusal eval (route NULL)
-- measure: D1(b) decision share (pre-registration §1 D1(b)): among truncated replies re-run with 16,000 tokens, the share that become something other than a refusal by the eval's own scorer, per refusal eval
-- needs: reruns, study_evals, rates
--
-- The denominator is every paired wide re-run of a truncated_empty reply; a re-run the scorer left
-- unscored (rerun_refused NULL) is not a non-refusal and is counted in x_unknown. Planned re-runs
-- that never ran (status not_rerun) are counted apart. A sample (eval × route × sample id) is the
-- unit; pooled rows count a sample of each route as its own unit. The 25% threshold is applied by
-- decide, not here.
WITH refusal_evals AS (
  SELECT eval FROM study_evals WHERE kind = 'refusal'
),
planned AS (
  SELECT r.eval, r.route, r.sample_id, r.status, r.rerun_refused
  FROM reruns r SEMI JOIN refusal_evals e USING (eval)
  WHERE r.arm = 'wide' AND r.orig_class = 'truncated_empty' AND r.status IN ('paired', 'not_rerun')
),
per_sample AS (
  SELECT
    eval, route, sample_id,
    count(*) FILTER (WHERE status = 'paired') AS k,
    count(*) FILTER (WHERE status = 'not_rerun') AS k_not_rerun,
    count(*) FILTER (WHERE status = 'paired' AND NOT rerun_refused) AS k_non_refusal,
    count(*) FILTER (WHERE status = 'paired' AND rerun_refused) AS k_refused
  FROM planned
  GROUP BY ALL
),
shares AS (
  SELECT *,
    rate(k_non_refusal, k) AS s_non_refusal,
    rate(k_refused, k) AS s_refused,
    rate(k - k_non_refusal - k_refused, k) AS s_unknown
  FROM per_sample
),
cells AS (
  SELECT
    eval, route, grouping(route) = 1 AS pooled,
    count(*) FILTER (WHERE k > 0) AS n_samples,
    sum(k)::BIGINT AS n_reruns,
    sum(k_not_rerun)::BIGINT AS n_not_rerun,
    coalesce(exact_sum(s_non_refusal), 0) AS x_non_refusal,
    coalesce(exact_sum(s_refused), 0) AS x_refused,
    coalesce(exact_sum(s_unknown), 0) AS x_unknown
  FROM shares
  GROUP BY GROUPING SETS ((eval, route), (eval))
)
SELECT
  eval, route, pooled,
  n_samples, n_reruns, n_not_rerun,
  x_non_refusal, x_refused, x_unknown,
  rate(x_non_refusal, n_samples) AS share_non_refusal,
  wilson_low(x_non_refusal, n_samples) AS ci_low,
  wilson_high(x_non_refusal, n_samples) AS ci_high,
  getvariable('interval_level') AS level
FROM cells
ORDER BY eval, pooled, route
