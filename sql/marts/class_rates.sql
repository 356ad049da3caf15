-- output: class_rates
-- kind: output
-- grain: one row per eval × route × arm × class (every class of the seed, zeros included)
-- measure: Class rates (pre-registration §5 "Class rates": per eval × route × arm, the share of replies in each class; §6 Wilson intervals with the sample as the unit)
-- needs: study_replies, reply_classes, rates
WITH cells AS (
  SELECT eval, profiled, route, arm, count(DISTINCT sample_id) AS n_samples, count(*) AS n_replies
  FROM study_replies
  GROUP BY ALL
),
in_class AS (
  SELECT eval, profiled, route, arm, class, count(*) AS n_class_replies, sample_share(sample_weight, true) AS x_samples
  FROM study_replies
  GROUP BY ALL
),
grid AS (
  SELECT c.*, k.class, k.ordinal
  FROM cells c CROSS JOIN reply_classes k
),
counted AS (
  SELECT g.*, coalesce(i.n_class_replies, 0) AS n_class_replies, coalesce(i.x_samples, 0) AS x_samples
  FROM grid g LEFT JOIN in_class i USING (eval, profiled, route, arm, class)
)
SELECT
  eval, profiled, route, arm, class,
  n_samples, n_replies, n_class_replies, x_samples,
  rate(x_samples, n_samples) AS rate,
  wilson_low(x_samples, n_samples) AS ci_low,
  wilson_high(x_samples, n_samples) AS ci_high,
  getvariable('interval_level') AS level
FROM counted
ORDER BY eval, profiled, route, arm, ordinal
