-- output: tight_vs_default
-- kind: output
-- grain: one row per eval × route × measure (truncated_empty, non_answer) with a tight arm
-- measure: default versus tight, paired by sample with bootstrap intervals over samples (pre-registration §6; §6 exploratory "HLE tight versus default")
-- needs: tight_vs_default_samples, boot_tight_default, study_replies, rates
--
-- delta is the mean over paired samples of (tight − default); its interval is the percentile
-- interval of the same mean over seeded bootstrap resamples of whole samples (boot_tight_default:
-- manifest seed and resamples, one PCG stream per eval × route, the same draws for both measures).
-- (percentile_low, percentile_high: sql/macros/rates.sql).
WITH point AS (
  SELECT eval, route, measure,
    count(*) AS n_paired_samples,
    exact_avg(default_value) AS default_rate,
    exact_avg(tight_value) AS tight_rate,
    exact_avg(delta) AS delta
  FROM tight_vs_default_samples
  GROUP BY ALL
),
bounds AS (
  SELECT eval, route, measure,
    count(*) AS resamples,
    percentile_low(delta) AS ci_low,
    percentile_high(delta) AS ci_high
  FROM boot_tight_default
  GROUP BY ALL
),
arm_samples AS (
  SELECT eval, route,
    count(DISTINCT sample_id) FILTER (WHERE arm = 'default') AS n_default_samples,
    count(DISTINCT sample_id) FILTER (WHERE arm = 'tight') AS n_tight_samples
  FROM study_replies
  WHERE profiled AND arm IN ('default', 'tight')
  GROUP BY ALL
)
SELECT
  p.eval, p.route, p.measure,
  p.n_paired_samples, a.n_default_samples, a.n_tight_samples,
  p.default_rate, p.tight_rate, p.delta,
  i.ci_low, i.ci_high,
  getvariable('interval_level') AS level,
  coalesce(i.resamples, 0) AS resamples,
  getvariable('bootstrap_seed') AS seed
FROM point p
LEFT JOIN bounds i USING (eval, route, measure)
JOIN arm_samples a USING (eval, route)
ORDER BY p.eval, p.route, p.measure
