-- output: rates_by_stop_category
-- kind: output
-- grain: one row per eval × route × arm × stop_details category ('(none)' when the provider gave none)
-- measure: Exploratory rates by stop_details category (pre-registration §6 "Exploratory: rates by stop reason and stop_details category")
-- needs: study_replies, wilson
--
-- rate: the share of the cell's samples whose reply stopped with this category; non_answer_rate: the
-- share of the cell's samples whose reply stopped with this category and is a non-answer. Both with the
-- sample as the unit and Wilson intervals over the cell's samples.
WITH cells AS (
  SELECT eval, profiled, route, arm, count(DISTINCT sample_id) AS n_samples
  FROM study_replies
  GROUP BY ALL
),
by_category AS (
  SELECT
    eval, profiled, route, arm, coalesce(stop_details_category, '(none)') AS stop_details_category,
    count(*) AS n_replies,
    count(*) FILTER (WHERE non_answer) AS n_non_answer_replies,
    sum(sample_weight) AS x_samples,
    coalesce(sum(sample_weight) FILTER (WHERE non_answer), 0) AS x_non_answer
  FROM study_replies
  GROUP BY ALL
)
SELECT
  b.eval, b.profiled, b.route, b.arm, b.stop_details_category,
  c.n_samples, b.n_replies, b.n_non_answer_replies,
  b.x_samples,
  b.x_samples / c.n_samples AS rate,
  wilson_low(b.x_samples, c.n_samples) AS ci_low,
  wilson_high(b.x_samples, c.n_samples) AS ci_high,
  b.x_non_answer,
  b.x_non_answer / c.n_samples AS non_answer_rate,
  wilson_low(b.x_non_answer, c.n_samples) AS non_answer_ci_low,
  wilson_high(b.x_non_answer, c.n_samples) AS non_answer_ci_high,
  getvariable('interval_level') AS level
FROM by_category b
JOIN cells c USING (eval, profiled, route, arm)
ORDER BY b.eval, b.profiled, b.route, b.arm, b.stop_details_category
