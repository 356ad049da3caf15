-- output: d4_judge_verdicts
-- kind: output
-- grain: one row per eval × judge model × non-answer form × verdict
-- measure: D4 verdict distribution (pre-registration §5 "Judge behaviour on non-answers": per judge and non-answer form, the verdict distribution)
-- needs: judge_tests, rates
--
-- share is the case-weighted share of the judge × form's verdicts: a case (one sample) counts once,
-- its repeats sharing its weight, so the shares of a judge × form sum to 1.
WITH weighted AS (
  SELECT *, sample_weight((eval, judge_model, form, sample_id)) AS case_weight
  FROM judge_tests
),
cells AS (
  SELECT eval, judge_model, form, count(DISTINCT sample_id) AS n_cases
  FROM judge_tests
  GROUP BY ALL
),
verdicts AS (
  SELECT
    eval, judge_model, form, verdict_json::VARCHAR AS verdict, -- its JSON text
    count(*) AS n_verdicts,
    count(*) FILTER (WHERE passed) AS n_passed,
    exact_sum(case_weight) AS x_cases
  FROM weighted
  GROUP BY ALL
)
SELECT
  v.eval, v.judge_model, v.form, v.verdict,
  c.n_cases, v.n_verdicts, v.n_passed, v.x_cases,
  rate(v.x_cases, c.n_cases) AS share
FROM verdicts v
JOIN cells c USING (eval, judge_model, form)
ORDER BY v.eval, v.judge_model, v.form, v.verdict
