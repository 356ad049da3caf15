-- output: d4_judge_behaviour
-- kind: output
-- grain: one row per eval × judge model × non-answer form, and one pooled row per eval × judge model (form NULL)
-- measure: D4 judges on non-answers (pre-registration §1 D4, §5 "Judge behaviour on non-answers"): per judge and non-answer form, the passing rate and the share of cases whose repeats disagree
-- needs: judge_tests, rates
--
-- A case is one judge grading one form on one sample (eval × judge model × form × sample id); its
-- repeats share its weight. Pass rate: x = the sum over cases of the share of their scored repeats
-- (passed not NULL) that passed, n = cases with a scored repeat. Repeat disagreement: among cases
-- graded at least twice, those whose verdicts (verdict_json) are not all equal. The 5% and 10%
-- thresholds are applied by decide.
WITH per_case AS (
  SELECT
    eval, judge_model, form, sample_id,
    count(*) AS k,
    count(passed) AS k_scored,
    count(*) FILTER (WHERE passed) AS k_passed,
    count(DISTINCT verdict_json) AS n_verdicts,
    count(*) FILTER (WHERE judge_class <> 'usable') AS k_unusable,
    min(temperature) AS t_min,
    max(temperature) AS t_max
  FROM judge_tests
  GROUP BY ALL
),
cases AS (
  SELECT *,
    rate(k_passed, k_scored) AS s_passed,
    k >= 2 AS repeated,
    k >= 2 AND n_verdicts > 1 AS disagree
  FROM per_case
),
judges AS (
  SELECT
    eval, judge_model, form, grouping(form) = 1 AS pooled,
    count(*) AS n_cases,
    sum(k)::BIGINT AS n_verdicts,
    sum(k_unusable)::BIGINT AS n_unusable_judge_replies,
    count(*) FILTER (WHERE k_scored > 0) AS n_scored_cases,
    coalesce(exact_sum(s_passed), 0) AS x_passed,
    count(*) FILTER (WHERE repeated) AS n_repeated_cases,
    count(*) FILTER (WHERE disagree) AS n_disagreeing_cases,
    min(t_min) AS temperature_min,
    max(t_max) AS temperature_max
  FROM cases
  GROUP BY GROUPING SETS ((eval, judge_model, form), (eval, judge_model))
)
SELECT
  eval, judge_model, form, pooled,
  n_cases, n_verdicts, n_unusable_judge_replies,
  n_scored_cases, x_passed,
  rate(x_passed, n_scored_cases) AS pass_rate,
  wilson_low(x_passed, n_scored_cases) AS pass_ci_low,
  wilson_high(x_passed, n_scored_cases) AS pass_ci_high,
  n_repeated_cases, n_disagreeing_cases,
  rate(n_disagreeing_cases, n_repeated_cases) AS repeat_disagreement,
  wilson_low(n_disagreeing_cases, n_repeated_cases) AS disagree_ci_low,
  wilson_high(n_disagreeing_cases, n_repeated_cases) AS disagree_ci_high,
  temperature_min, temperature_max,
  getvariable('interval_level') AS level
FROM judges
ORDER BY eval, judge_model, pooled, form
