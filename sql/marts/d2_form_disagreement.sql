-- output: d2_form_disagreement
-- kind: output
-- grain: one row per model × route pair × eval, and one pooled row per model × route pair (eval NULL)
-- measure: D2 form disagreement (pre-registration §1 D2, §5): for each model served by two routes, among samples where either route refused (form not none), the share where the two routes delivered different forms; beside it, the same share among samples where both routes refused (design.md ruling)
-- needs: reply_outcomes, study_routes, rates
--
-- Forms are reply_outcomes.form (filtered, refusal_flag, error_text, text or none), default arm,
-- Part A. Replies of the two routes are paired by eval, sample id and epoch; a sample is the unit
-- and its paired epochs share its weight. share_both_refused is the share of either-refused samples
-- where both routes refused: low values mean the routes disagree on refusing at all, not on form.
-- Pooled rows count (eval, sample id) as the unit. The 10% threshold is applied by decide.
WITH pairs AS (
  SELECT a.model, a.route AS route_a, b.route AS route_b
  FROM study_routes a
  JOIN study_routes b ON a.model = b.model AND a.route < b.route
),
outcomes AS (
  SELECT eval, route, sample_id, epoch, form
  FROM reply_outcomes
  WHERE arm = 'default' AND part = 'A'
),
matched AS (
  SELECT p.model, p.route_a, p.route_b, a.eval, a.sample_id, a.form AS form_a, b.form AS form_b
  FROM pairs p
  JOIN outcomes a ON a.route = p.route_a
  JOIN outcomes b ON b.route = p.route_b AND b.eval = a.eval AND b.sample_id = a.sample_id AND b.epoch = a.epoch
),
flagged AS (
  SELECT *,
    form_a <> 'none' OR form_b <> 'none' AS either_refused,
    form_a <> 'none' AND form_b <> 'none' AS both_refused,
    form_a <> form_b AS forms_differ
  FROM matched
),
per_sample AS (
  SELECT
    model, route_a, route_b, eval, sample_id,
    count(*) FILTER (WHERE either_refused) AS k_either,
    count(*) FILTER (WHERE both_refused) AS k_both,
    count(*) FILTER (WHERE either_refused AND forms_differ) AS k_either_differ,
    count(*) FILTER (WHERE both_refused AND forms_differ) AS k_both_differ
  FROM flagged
  GROUP BY ALL
),
shares AS (
  SELECT *,
    rate(k_either_differ, k_either) AS s_differ,
    rate(k_both, k_either) AS s_both_refused,
    rate(k_both_differ, k_both) AS s_both_differ
  FROM per_sample
),
cells AS (
  SELECT
    model, route_a, route_b, eval, grouping(eval) = 1 AS pooled,
    count(*) AS n_paired_samples,
    count(*) FILTER (WHERE k_either > 0) AS n_either_refused,
    coalesce(exact_sum(s_differ), 0) AS x_forms_differ,
    coalesce(exact_sum(s_both_refused), 0) AS x_both_refused,
    count(*) FILTER (WHERE k_both > 0) AS n_both_refused,
    coalesce(exact_sum(s_both_differ), 0) AS x_forms_differ_both
  FROM shares
  GROUP BY GROUPING SETS ((model, route_a, route_b, eval), (model, route_a, route_b))
)
SELECT
  model, route_a, route_b, eval, pooled,
  n_paired_samples, n_either_refused,
  x_forms_differ,
  rate(x_forms_differ, n_either_refused) AS share_forms_differ,
  wilson_low(x_forms_differ, n_either_refused) AS ci_low,
  wilson_high(x_forms_differ, n_either_refused) AS ci_high,
  x_both_refused,
  rate(x_both_refused, n_either_refused) AS share_both_refused,
  n_both_refused,
  x_forms_differ_both,
  rate(x_forms_differ_both, n_both_refused) AS share_forms_differ_both,
  wilson_low(x_forms_differ_both, n_both_refused) AS both_ci_low,
  wilson_high(x_forms_differ_both, n_both_refused) AS both_ci_high,
  getvariable('interval_level') AS level
FROM cells
ORDER BY model, route_a, route_b, pooled, eval
