-- output: stop_rates
-- kind: macro
-- measure: Exploratory rates by stop reason and stop_details category (pre-registration §6 "Exploratory: rates by stop reason and stop_details category"), the query both outputs share
-- needs: study_replies, rates
--
-- stop_rates(dim) gives one row per eval × route × arm × value of the study_replies column dim (in
-- stop_value, '(none)' when null). rate: the share of the cell's samples whose reply stopped with this
-- value; non_answer_rate: the share of the cell's samples whose reply stopped with this value and is
-- a non-answer. Both with the sample as the unit and Wilson intervals over the cell's samples.
CREATE OR REPLACE MACRO stop_rates(dim) AS TABLE
WITH cells AS (
  SELECT eval, profiled, route, arm, count(DISTINCT sample_id) AS n_samples
  FROM study_replies
  GROUP BY ALL
),
by_value AS (
  SELECT
    eval, profiled, route, arm, coalesce(dim, '(none)') AS stop_value,
    count(*) AS n_replies,
    count(*) FILTER (WHERE non_answer) AS n_non_answer_replies,
    sample_share(sample_weight, true) AS x_samples,
    sample_share(sample_weight, non_answer) AS x_non_answer
  FROM study_replies
  GROUP BY ALL
)
SELECT
  b.eval, b.profiled, b.route, b.arm, b.stop_value,
  c.n_samples, b.n_replies, b.n_non_answer_replies,
  b.x_samples,
  rate(b.x_samples, c.n_samples) AS rate,
  wilson_low(b.x_samples, c.n_samples) AS ci_low,
  wilson_high(b.x_samples, c.n_samples) AS ci_high,
  b.x_non_answer,
  rate(b.x_non_answer, c.n_samples) AS non_answer_rate,
  wilson_low(b.x_non_answer, c.n_samples) AS non_answer_ci_low,
  wilson_high(b.x_non_answer, c.n_samples) AS non_answer_ci_high,
  getvariable('interval_level') AS level
FROM by_value b
JOIN cells c USING (eval, profiled, route, arm);
